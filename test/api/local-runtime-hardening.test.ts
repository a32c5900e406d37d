/**
 * The local runtime against a hostile neighbour (issue 16): a runtime of its own (the crashers
 * here would take the suites' shared one down with them), started as `npm start` starts it, with
 * ALLOW_HTTP_LOOPBACK_WEBHOOKS=false.
 *
 * - The setting is honoured: no plain-http webhook to loopback, no loopback in any spelling.
 * - No request to any of its ports stops it: the mail viewer's known crashers (an unknown or
 *   missing `messageId` on /get-emlContent killed the process with an unhandled rejection) and a
 *   few odd requests on every port, raw over TCP; then the API still answers.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../local/ports';
import { startRuntimeProcess, stopRuntimeProcess } from '../support/runtime-process';
import { signedFetch } from '../../local/aws/sigv4';
import { runtimeCredentials } from '../support/stand-ins';

const key = `es_test_${'H'.repeat(32)}`;
const dataDir = mkdtempSync(join(tmpdir(), 'email-service-hardening-'));
let child: ChildProcess;
let output: () => string = () => '';
let apiUrl = '';
let ports: Record<string, number> = {};

const portOf = (url: string) => Number(new URL(url).port);
/**
 * Still serving: the process runs and has logged no error of its own that nothing caught (the
 * runtime's last resort, local/runtime.ts, logs it FATAL at once and exits only once it
 * stopped its parts). An error raised in a stand-in's code is logged ERROR and it keeps serving.
 */
const alive = () => child.exitCode === null && !/"level":"FATAL"/.test(output());

beforeAll(async () => {
  const started = await startRuntimeProcess({
    DATA_DIR: dataDir,
    LOCAL_API_KEY: key,
    ALLOW_HTTP_LOOPBACK_WEBHOOKS: 'false',
  });
  child = started.child;
  apiUrl = started.apiUrl;
  output = started.output;
  const info = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8'));
  ports = {
    api: portOf(info.apiUrl),
    dynamodb: portOf(info.dynamoDbEndpoint),
    sqs: portOf(info.sqsEndpoint),
    ses: portOf(info.sesEndpoint),
    mailViewer: portOf(info.mailViewerUrl),
    s3: portOf(info.s3Endpoint),
    smtp: info.smtpPort,
    ...info.ports, // every port of the runtime, when it lists them
  };
}, 120_000);

afterAll(async () => {
  await stopRuntimeProcess(child); // SIGTERM to its group, and waits until it exited
  rmSync(dataDir, { recursive: true, force: true });
});

const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(apiUrl + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json().catch(() => undefined)) as any };
};

/** Sends `bytes` to 127.0.0.1:`port` and reads what comes back until the peer closes or 1.5 s pass. */
const raw = (port: number, bytes: string | Buffer) =>
  new Promise<string>((resolve) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1');
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(done, 1500);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (c) => (answer += c));
    socket.on('error', done);
    socket.on('close', done);
  });

const get = (path: string, headers = '') =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}Connection: close\r\n\r\n`;
const post = (path: string, body: string, headers = '') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;

it('honours ALLOW_HTTP_LOOPBACK_WEBHOOKS=false: no http to loopback, no loopback in any spelling (422)', async () => {
  const receiver = await freePort();
  for (const endpoint of [
    `http://127.0.0.1:${receiver}/hook`,
    `http://localhost:${receiver}/hook`,
    'https://LOCALHOST./hook',
    'https://127.1/hook',
    `https://[::1]:${receiver}/`,
  ]) {
    const res = await call('POST', '/webhooks', { endpoint, events: ['email.sent'] });
    expect({ endpoint, status: res.status, name: res.body?.name }).toEqual({
      endpoint,
      status: 422,
      name: 'validation_error',
    });
  }
});

it('survives the known crashers and odd requests on every port, and still answers', async () => {
  expect(Object.keys(ports).length).toBeGreaterThanOrEqual(7);
  const crashers = [
    get('/get-emlContent?messageId=does-not-exist'),
    get('/get-emlContent'),
    get('/get-emlContent?messageId=a&messageId=b'),
    get('/store?since=yesterday'),
    post('/', '{"Action":"Nothing"}', 'Authorization: AWS4-HMAC-SHA256 Credential=x\r\n'),
    post('/v2/email/outbound-emails', '{', 'Authorization: AWS4-HMAC-SHA256 Credential=x\r\n'),
    post('/v2/email/outbound-emails', '{"Content":{}}', 'Authorization: AWS4-HMAC-SHA256 Credential=x\r\n'),
    post('/v2/email/templates', '[]', 'Authorization: AWS4-HMAC-SHA256 Credential=x\r\n'),
    post('/', 'Action=SendEmail', 'Authorization: AWS4-HMAC-SHA256 Credential=x\r\n'),
    get('/%'),
    get('/..%2f..%2fetc%2fpasswd'),
    get('/v2/email/identities/%E0%A4%A'),
    get('/?Action=ReceiveMessage&QueueUrl=%'),
    post('/', '{"QueueUrl":1}', 'X-Amz-Target: AmazonSQS.ReceiveMessage\r\n'),
    post('/', 'null', 'X-Amz-Target: DynamoDB_20120810.GetItem\r\n'),
    `PUT /bucket/${'x'.repeat(5000)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc`,
    Buffer.from([0, 1, 2, 255, 13, 10, 13, 10]),
    'EHLO x\r\nMAIL FROM:<>\r\nRCPT TO:<\u0000@x>\r\nDATA\r\n.\r\nQUIT\r\n',
  ];
  for (const [name, port] of Object.entries(ports)) {
    for (const bytes of crashers) {
      await raw(port, bytes);
      expect({ name, port, alive: alive(), output: alive() ? '' : output() }).toEqual({
        name,
        port,
        alive: true,
        output: '',
      });
    }
  }
  // a rejection left unhandled surfaces once the handler that made it has run on: a request answered
  // after every crasher's connection closed has had the event loop go past them
  expect((await call('GET', '/domains')).status).toBe(200);
  expect({ alive: alive(), output: alive() ? '' : output() }).toEqual({ alive: true, output: '' });
  // aws-ses-v2-local has no port of its own any more (a socket only the SES front reaches): none of
  // the runtime's ports is it, so none of these reached its crashing handlers
  expect(Object.keys(ports)).not.toContain('sesStore');
  const viewer = await fetch(`http://127.0.0.1:${ports.mailViewer}/store`);
  expect(viewer.status).toBe(200);
  // an unknown message is a clean 404 from the mail viewer, on both of the SES ports (the SES
  // endpoint answers signed requests only: local/aws/sigv4.ts)
  const unknownMessage = '/get-emlContent?messageId=does-not-exist';
  expect((await fetch(`http://127.0.0.1:${ports.mailViewer}${unknownMessage}`)).status).toBe(404);
  expect((await fetch(`http://127.0.0.1:${ports.ses}${unknownMessage}`)).status).toBe(403);
  expect(
    (await signedFetch(`http://127.0.0.1:${ports.ses}${unknownMessage}`, runtimeCredentials(dataDir), 'ses')).status,
  ).toBe(404);
}, 120_000);
