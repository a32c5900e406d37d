/**
 * `npm run preflight` (lib/preflight.ts) against stubbed AWS answers: one HTTP server answers
 * SES v2 GetAccount, SES v1 DescribeActiveReceiptRuleSet and Lambda GetAccountSettings as AWS
 * does, reached through the SDK's AWS_ENDPOINT_URL_<SERVICE> variables. Every request must be signed.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatPreflight, preflight, type PreflightOptions } from '../../lib/preflight';

interface Answers {
  account: Record<string, unknown>;
  activeRuleSet?: string;
  concurrency: number;
}
let answers: Answers;
const seen: { path: string; authorization?: string; body: string }[] = [];
let server: Server;
const saved = { ...process.env };

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (c) => (body += c));
    request.on('end', () => {
      seen.push({ path: `${request.method} ${request.url}`, authorization: request.headers.authorization, body });
      if (request.url === '/v2/email/account') {
        response.writeHead(200, { 'content-type': 'application/json' });
        return response.end(JSON.stringify(answers.account));
      }
      if (request.method === 'POST' && body.includes('Action=DescribeActiveReceiptRuleSet')) {
        const metadata = answers.activeRuleSet
          ? `<Metadata><Name>${answers.activeRuleSet}</Name><CreatedTimestamp>2026-01-01T00:00:00Z</CreatedTimestamp></Metadata>`
          : '';
        response.writeHead(200, { 'content-type': 'text/xml' });
        return response.end(
          `<DescribeActiveReceiptRuleSetResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><DescribeActiveReceiptRuleSetResult>${metadata}<Rules/></DescribeActiveReceiptRuleSetResult></DescribeActiveReceiptRuleSetResponse>`,
        );
      }
      if (request.url === '/2016-08-19/account-settings/') {
        response.writeHead(200, { 'content-type': 'application/json' });
        return response.end(
          JSON.stringify({
            AccountLimit: {
              ConcurrentExecutions: answers.concurrency,
              UnreservedConcurrentExecutions: answers.concurrency,
            },
          }),
        );
      }
      response.writeHead(404);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SESV2: url,
    AWS_ENDPOINT_URL_SES: `${url}/`,
    AWS_ENDPOINT_URL_LAMBDA: url,
  });
});

afterAll(async () => {
  for (const name of ['AWS_ENDPOINT_URL_SESV2', 'AWS_ENDPOINT_URL_SES', 'AWS_ENDPOINT_URL_LAMBDA']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await new Promise((resolve) => server.close(resolve));
});

/** `cliRegion`: where the CLIs would go (AWS_REGION); `context`: the deploy's (`region` for `-c region=`). */
const options = (cliRegion = 'ap-southeast-2', context: Record<string, unknown> = {}): PreflightOptions => ({
  cliRegion,
  credentials: async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
  stackName: 'EmailService',
  context: { alarmEmail: 'oncall@example.com', ...context },
});

const readyAccount = (): Answers => ({
  account: {
    ProductionAccessEnabled: true,
    SendingEnabled: true,
    EnforcementStatus: 'HEALTHY',
    SendQuota: { MaxSendRate: 200, Max24HourSend: 1_000_000, SentLast24Hours: 0 },
  },
  concurrency: 1000,
});

it('passes a production-ready account, and says what to deploy with', async () => {
  answers = {
    account: {
      ProductionAccessEnabled: true,
      SendingEnabled: true,
      EnforcementStatus: 'HEALTHY',
      SendQuota: { MaxSendRate: 200, Max24HourSend: 1_000_000, SentLast24Hours: 12 },
    },
    activeRuleSet: 'EmailServiceInboundMailRuleSetABC123',
    concurrency: 1000,
  };
  seen.length = 0;
  const checks = await preflight(options());
  expect(checks.map((c) => [c.name, c.status])).toEqual([
    ['Region', 'ok'],
    ['SES production access', 'ok'],
    ['SES sending', 'ok'],
    ['SES quotas', 'ok'],
    ['SES receiving', 'ok'],
    ['Lambda concurrency', 'ok'],
    ['Alarm subscriber', 'ok'],
  ]);
  const report = formatPreflight(checks);
  expect(report).toContain('-c sesSendRate=200');
  expect(report).toContain('-c lambdaConcurrencyQuota=1000');
  expect(report).toContain('Ready for `cdk deploy`.');
  expect(seen).toHaveLength(3);
  for (const request of seen)
    expect(request.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/ap-southeast-2\/(ses|lambda)\/aws4_request/,
    );
});

it("fails a new account and names each fix: sandbox, a quota of 10, another team's receipt rule set, the wrong region", async () => {
  answers = {
    account: {
      ProductionAccessEnabled: false,
      SendingEnabled: true,
      EnforcementStatus: 'HEALTHY',
      SendQuota: { MaxSendRate: 1, Max24HourSend: 200, SentLast24Hours: 0 },
    },
    activeRuleSet: 'other-team-inbound',
    concurrency: 10,
  };
  const checks = await preflight(options('us-east-1'));
  const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
  expect(byName.Region).toMatchObject({
    status: 'fail',
    detail: expect.stringContaining('would talk to us-east-1'),
    fix: expect.stringContaining('export AWS_REGION=ap-southeast-2'),
  });
  expect(byName['SES production access']).toMatchObject({
    status: 'fail',
    fix: expect.stringContaining('Request production access'),
  });
  expect(byName['SES receiving']).toMatchObject({
    status: 'warn',
    detail: expect.stringContaining('other-team-inbound'),
  });
  expect(byName['Lambda concurrency']).toMatchObject({
    status: 'fail',
    detail: expect.stringContaining('10 functions at once'),
  });
  expect(formatPreflight(checks)).toMatch(/3 check\(s\) failed/);
});

it('turns an AWS refusal into a failed check, not a crash', async () => {
  answers = { account: {}, concurrency: 1000 };
  const refusing = { ...options(), credentials: async () => Promise.reject(new Error('no credentials in the chain')) };
  const checks = await preflight(refusing);
  expect(checks.filter((c) => c.status === 'fail').map((c) => c.name)).toEqual([
    'SES account',
    'SES receiving',
    'Lambda concurrency',
  ]);
  expect(checks[1].detail).toContain('no credentials in the chain');
});

it('warns loudly, without failing, when the deploy gives no one the alarms (no alarmEmail in its context)', async () => {
  answers = {
    account: {
      ProductionAccessEnabled: true,
      SendingEnabled: true,
      EnforcementStatus: 'HEALTHY',
      SendQuota: { MaxSendRate: 200, Max24HourSend: 1_000_000, SentLast24Hours: 0 },
    },
    concurrency: 1000,
  };
  const checks = await preflight({ ...options(), context: {} });
  expect(checks.find((c) => c.name === 'Alarm subscriber')).toMatchObject({
    status: 'warn',
    detail: expect.stringContaining('NO ONE RECEIVES THE ALARMS'),
    fix: expect.stringContaining('-c alarmEmail='),
  });
  const report = formatPreflight(checks);
  // the warning's line, and again as the report's last words before the verdict
  expect(report.match(/NO ONE RECEIVES THE ALARMS/g)).toHaveLength(2);
  expect(report).toMatch(/!!! NO ONE RECEIVES THE ALARMS[^\n]* !!!\n\nReady for `cdk deploy`\.$/);
});

it('checks the account in the region the stack deploys to (-c region=eu-west-1), and that the CLIs will use it too', async () => {
  answers = readyAccount();
  seen.length = 0;
  const checks = await preflight(options('eu-west-1', { region: 'eu-west-1' }));
  expect(checks.filter((c) => c.status === 'fail')).toEqual([]);
  expect(checks[0]).toMatchObject({ name: 'Region', status: 'ok', detail: expect.stringContaining('eu-west-1') });
  expect(seen).toHaveLength(3);
  for (const request of seen)
    expect(request.authorization).toMatch(/Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/(ses|lambda)\/aws4_request/);

  // the same deploy from a shell whose AWS_REGION is still the default: the CLIs would miss the stack
  const elsewhere = await preflight(options('ap-southeast-2', { region: 'eu-west-1' }));
  expect(elsewhere[0]).toMatchObject({ status: 'fail', fix: expect.stringContaining('export AWS_REGION=eu-west-1') });
});

it('fails a region where SES receives no mail, unless the deploy vouches that AWS added it since', async () => {
  answers = readyAccount();
  const [region] = await preflight(options('eu-south-1', { region: 'eu-south-1' }));
  expect(region).toMatchObject({
    name: 'Region',
    status: 'fail',
    detail: expect.stringMatching(/SES email receiving.*not offered in eu-south-1.*sesReceivingInRegion=true/),
  });
  const [vouched] = await preflight(options('eu-south-1', { region: 'eu-south-1', sesReceivingInRegion: 'true' }));
  expect(vouched).toMatchObject({ name: 'Region', status: 'ok' });
});

it('fails a region that is no region code without calling AWS', async () => {
  seen.length = 0;
  const checks = await preflight(options('ap-southeast-2', { region: 'Sydney' }));
  expect(checks[0]).toMatchObject({ name: 'Region', status: 'fail', detail: expect.stringContaining('"Sydney"') });
  expect(seen).toEqual([]);
  expect(formatPreflight(checks)).toMatch(/1 check\(s\) failed/);
});
