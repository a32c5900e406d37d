/**
 * The webhook delivery queue as deployed, for fairness between projects (issue 32, 7). A fair
 * queue is a standard queue whose messages carry a MessageGroupId (the project's: checked where
 * they are sent, test/integration/webhook-fanout.test.ts); the template can show that it is a
 * standard queue, not FIFO (a FIFO queue would serialise each project's deliveries behind its
 * slowest), and that the held-then-attempted messages of a throttled endpoint have room before
 * the DLQ.
 */
import type { CfnElement } from 'aws-cdk-lib';
import { queues } from '../../functions/workers';
import { workerFunctionId } from '../../lib/email-service-stack';
import { synthesized } from '../support/synth';

const { stack, resources } = synthesized();
const idOf = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

describe('the webhook delivery queue', () => {
  const { queue } = stack.queues.get('webhook-delivery')!;
  const properties = resources[idOf(queue)].Properties;

  it("is a standard queue (made fair by its messages' groups), not FIFO", () => {
    expect(properties.FifoQueue).toBeUndefined();
    expect(properties.ContentBasedDeduplication).toBeUndefined();
    expect(properties.FifoThroughputLimit).toBeUndefined();
  });

  it("leaves two receives per scheduled attempt before the DLQ (a throttled endpoint's delivery is held, then attempted)", () => {
    const scheduledAttempts = 8; // the first and the 7 retries of DESIGN.md's schedule
    expect(properties.RedrivePolicy.maxReceiveCount).toBe(
      queues.find((q) => q.name === 'webhook-delivery')!.maxReceiveCount,
    );
    expect(properties.RedrivePolicy.maxReceiveCount).toBeGreaterThanOrEqual(2 * scheduledAttempts + 8);
  });

  it('feeds the dispatcher 20 invocations at most, reporting batch item failures (held and retried messages stay queued)', () => {
    const fnId = stack.getLogicalId(
      stack.functions.get(workerFunctionId('webhook-dispatcher'))!.node.defaultChild as CfnElement,
    );
    const mapping = Object.values(resources).find(
      (r) => r.Type === 'AWS::Lambda::EventSourceMapping' && r.Properties.FunctionName?.Ref === fnId,
    )!.Properties;
    expect(mapping).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [idOf(queue), 'Arn'] },
      ScalingConfig: { MaximumConcurrency: 20 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });
});
