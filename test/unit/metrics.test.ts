/**
 * The workers' custom metrics (shared/platform/metrics.ts) as CloudWatch reads Embedded Metric
 * Format: written on Lambda only, as one log line per count.
 */
import { countMetric, metricLine, METRICS_NAMESPACE } from '../../shared/platform/metrics';

const saved = process.env.AWS_LAMBDA_FUNCTION_NAME;
afterEach(() => {
  if (saved === undefined) delete process.env.AWS_LAMBDA_FUNCTION_NAME;
  else process.env.AWS_LAMBDA_FUNCTION_NAME = saved;
  jest.restoreAllMocks();
});

it('is a line CloudWatch turns into a count with its dimensions', () => {
  expect(JSON.parse(metricLine('WebhookDeliveries', 1, { Outcome: 'delivered' }, 1_700_000_000_000))).toEqual({
    _aws: {
      Timestamp: 1_700_000_000_000,
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [['Outcome']],
          Metrics: [{ Name: 'WebhookDeliveries', Unit: 'Count' }],
        },
      ],
    },
    Outcome: 'delivered',
    WebhookDeliveries: 1,
  });
  expect(JSON.parse(metricLine('Sent', 3))._aws.CloudWatchMetrics[0].Dimensions).toEqual([[]]);
});

it('writes the line on Lambda, and nothing elsewhere (the local runtime has no CloudWatch)', () => {
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  delete process.env.AWS_LAMBDA_FUNCTION_NAME;
  countMetric('Sent');
  expect(write).not.toHaveBeenCalled();
  process.env.AWS_LAMBDA_FUNCTION_NAME = 'EmailService-SenderWorker';
  countMetric('SendThrottled');
  expect(write).toHaveBeenCalledTimes(1);
  expect(JSON.parse(String(write.mock.calls[0][0]))).toMatchObject({
    SendThrottled: 1,
    _aws: { CloudWatchMetrics: [{ Metrics: [{ Name: 'SendThrottled' }] }] },
  });
});
