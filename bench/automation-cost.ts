/**
 * What an automation run costs (issue 36), from the calls the code makes: runs of a 5-step
 * automation (trigger -> 1-day delay -> send_email -> condition -> add_to_segment), each started by
 * POST /events/send for a contact, on a manual clock moved a day, until every run completed and
 * its email was delivered. The DynamoDB units, S3 requests, SQS messages and Scheduler schedules
 * are counted as bench/send-path-cost.ts counts them (bench/meter.ts); the rest is derived, as the
 * cost table says. The run includes its email's own life (accepted, sent, delivered: the send
 * path's cost, which bench/send-path-cost.ts breaks down), and its API request.
 *
 * Beside it, what the same runs would cost in Step Functions transitions alone: a Standard workflow
 * bills $25 per million state transitions, and this run would be about 12 (the states and the
 * wait's entering and leaving).
 *
 * Run alone: `npx tsx bench/automation-cost.ts` (BENCH_AUTOMATION_COST_RUNS, default 50).
 */
import { startBenchApi } from './local-api';
import { installMeter } from './meter';
import { PRICES } from './send-path-cost';

const KEY = `es_live_${'R'.repeat(32)}`;
/** EventBridge Scheduler: $1.00 per million invocations (after 14 million free a month, not counted here). */
const SCHEDULER_INVOCATION = 1 / 1e6;
/** Step Functions Standard: $25 per million state transitions; a 5-step run with a wait, about 12. */
const STEP_FUNCTIONS_TRANSITION = 25 / 1e6;
const STEP_FUNCTIONS_TRANSITIONS_PER_RUN = 12;

export interface AutomationCostResult {
  runs: number;
  perRun: { write: number; read: number; s3Puts: number; s3Gets: number; sqsMessages: number; schedules: number };
  perMillion: { item: string; count: string; price: string; dollars: number }[];
  total: number;
  stepFunctionsTransitions: number;
}

export async function benchAutomationCost(
  runs = Number(process.env.BENCH_AUTOMATION_COST_RUNS ?? 50),
): Promise<AutomationCostResult> {
  const { call, stop } = await startBenchApi('automation-cost', KEY, { LOCAL_CLOCK: 'manual' });
  const meter = await installMeter();
  try {
    const domain = await call('POST', '/domains', { name: 'runs.example.com' });
    await call('POST', `/domains/${domain.id}/verify`);
    const template = await call('POST', '/templates', {
      name: 'Welcome',
      html: '<p>Welcome, {{{FIRST_NAME|there}}}</p>',
      from: 'hello@runs.example.com',
      subject: 'Welcome',
    });
    await call('POST', `/templates/${template.id}/publish`);
    const segment = await call('POST', '/segments', { name: 'Welcomed' });
    const automation = await call('POST', '/automations', {
      name: 'Cost',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { event_name: 'cost.signup' } },
        { key: 'pause', type: 'delay', config: { duration: '1 day' } },
        {
          key: 'hello',
          type: 'send_email',
          config: { template: { id: template.id, variables: { FIRST_NAME: { var: 'contact.first_name' } } } },
        },
        { key: 'check', type: 'condition', config: { type: 'rule', field: 'contact.first_name', operator: 'exists' } },
        { key: 'tag', type: 'add_to_segment', config: { segment_id: segment.id } },
        { key: 'rename', type: 'contact_update', config: { first_name: 'Friend' } },
      ],
      connections: [
        { from: 'start', to: 'pause' },
        { from: 'pause', to: 'hello' },
        { from: 'hello', to: 'check' },
        { from: 'check', to: 'tag', type: 'condition_met' },
        { from: 'check', to: 'rename', type: 'condition_not_met' },
      ],
    });
    const emails = Array.from({ length: runs }, (_, i) => `success+${i}@simulator.amazonses.com`);
    for (const email of emails) await call('POST', '/contacts', { email, first_name: 'Ada' });
    await call('POST', '/_local/drain', { timeout_seconds: 120 });

    meter.reset();
    for (const email of emails) await call('POST', '/events/send', { event: 'cost.signup', email });
    await call('POST', '/_local/drain', { timeout_seconds: 120 });
    await call('POST', '/_local/clock', { advance: '1 day 5 minutes', timeout_seconds: 300 });
    const listed = await call('GET', `/automations/${automation.id}/runs?limit=100&status=completed`);
    if (listed.data.length !== runs) throw new Error(`${listed.data.length} of ${runs} runs completed`);
    const units = meter.units();
    const perRun = {
      write: units.write / runs,
      read: units.read / runs,
      s3Puts: units.s3Puts / runs,
      s3Gets: units.s3Gets / runs,
      sqsMessages: units.sqsSends / runs,
      schedules: units.schedules / runs,
    };
    const n = 1_000_000;
    const sesEvents = 2; // the email's send and delivery: SNS publishes, each a message on two feedback queues
    const sqsMessages = perRun.sqsMessages + sesEvents * 2;
    const lambdaInvocations = 1 + sqsMessages + perRun.schedules; // the API request, one per message (upper bound)
    const rows = [
      {
        item: 'DynamoDB writes',
        count: `${Math.round(perRun.write * n).toLocaleString('en')} WRU`,
        price: '$0.7125 / million',
        dollars: perRun.write * n * PRICES.dynamoWrite,
      },
      {
        item: 'DynamoDB reads',
        count: `${Math.round(perRun.read * n).toLocaleString('en')} RRU`,
        price: '$0.1425 / million',
        dollars: perRun.read * n * PRICES.dynamoRead,
      },
      {
        item: 'S3 PUT',
        count: Math.round(perRun.s3Puts * n).toLocaleString('en'),
        price: '$0.0055 / 1,000',
        dollars: perRun.s3Puts * n * PRICES.s3Put,
      },
      {
        item: 'S3 GET',
        count: Math.round(perRun.s3Gets * n).toLocaleString('en'),
        price: '$0.00044 / 1,000',
        dollars: perRun.s3Gets * n * PRICES.s3Get,
      },
      {
        item: 'SQS requests',
        count: `${Math.round(sqsMessages * 3 * n).toLocaleString('en')} (send, receive, delete per message)`,
        price: '$0.40 / million',
        dollars: sqsMessages * 3 * n * PRICES.sqsRequest,
      },
      {
        item: 'EventBridge Scheduler',
        count: Math.round(perRun.schedules * n).toLocaleString('en'),
        price: '$1.00 / million',
        dollars: perRun.schedules * n * SCHEDULER_INVOCATION,
      },
      {
        item: "SNS publishes (the email's SES events)",
        count: (sesEvents * n).toLocaleString('en'),
        price: '$0.50 / million',
        dollars: sesEvents * n * PRICES.snsPublish,
      },
      {
        item: 'Lambda requests',
        count: Math.round(lambdaInvocations * n).toLocaleString('en'),
        price: '$0.20 / million',
        dollars: lambdaInvocations * n * PRICES.lambdaRequest,
      },
      {
        item: 'Lambda duration (256 MB, 150 ms each, arm64)',
        count: `${Math.round(lambdaInvocations * n * 0.25 * 0.15).toLocaleString('en')} GB-s`,
        price: '$0.0000133334 / GB-s',
        dollars: lambdaInvocations * n * 0.25 * 0.15 * PRICES.lambdaArmGbSecond,
      },
      {
        item: 'API Gateway (POST /events/send)',
        count: n.toLocaleString('en'),
        price: '$1.29 / million',
        dollars: n * PRICES.apiRequest,
      },
      { item: 'SES (the email)', count: n.toLocaleString('en'), price: '$0.10 / 1,000', dollars: n * PRICES.sesEmail },
    ].map((row) => ({ ...row, dollars: Math.round(row.dollars * 100) / 100 }));
    return {
      runs,
      perRun,
      perMillion: rows,
      total: rows.reduce((sum, row) => sum + row.dollars, 0),
      stepFunctionsTransitions: STEP_FUNCTIONS_TRANSITIONS_PER_RUN * n * STEP_FUNCTIONS_TRANSITION,
    };
  } finally {
    await stop();
  }
}

export function formatAutomationCost(r: AutomationCostResult): string {
  const p = r.perRun;
  return [
    `${r.runs} runs of trigger -> 1-day delay -> send_email -> condition -> add_to_segment, each from POST /events/send, until completed and its email delivered. Per run: ${p.write.toFixed(1)} write units, ${p.read.toFixed(1)} read units, ${p.sqsMessages.toFixed(1)} SQS messages, ${p.schedules.toFixed(2)} schedules, ${p.s3Puts.toFixed(1)} S3 PUTs.\n`,
    '| per million runs | count | price | $ |',
    '|---|---:|---:|---:|',
    ...r.perMillion.map((row) => `| ${row.item} | ${row.count} | ${row.price} | ${row.dollars.toFixed(2)} |`),
    `| **total** | | | **${r.total.toFixed(2)}** |`,
    '',
    `Step Functions instead: about 12 state transitions a run at $25 per million, $${r.stepFunctionsTransitions.toFixed(0)} per million runs in transitions alone, before the table, the email and the API.`,
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchAutomationCost().then(
    (result) => {
      console.log('## What an automation run costs\n');
      console.log(formatAutomationCost(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
