/**
 * The inbound worker at SES's largest message (40 MB): what parsing it takes, so that its memory
 * (INBOUND_WORKER_MEMORY_MB), its timeout and its batch of one are chosen by measurement rather
 * than by a streaming parser. Each shape of a 40 MB raw message is parsed by the worker's own
 * `parseMessage` (postal-mime) in a fresh process: the peak resident memory (maxRSS) against the
 * process before the message existed, and the CPU the parse takes (at 2,048 MB Lambda gives more
 * than one full vCPU, so CPU time is about wall time there).
 *
 * Run alone: `npx tsx bench/inbound-memory.ts` (or BENCH_ONLY=inbound npm run bench).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { INBOUND_WORKER_MEMORY_MB, workers, workerTimeoutSeconds } from '../functions/workers';
import { MAX_PARSE_BYTES } from '../shared/receiving/inbound';

export interface InboundMemoryRow {
  shape: string;
  rawMb: number;
  baselineRssMb: number;
  peakRssMb: number;
  parseCpuMs: number;
}

const SHAPES: Record<string, string> = {
  'one attachment': 'a 29 MB PDF, base64',
  'ten attachments': 'ten 2.9 MB files, base64',
  'a large text body': '40 MB of quoted-printable text and its HTML twin',
};

/** A raw message of about `bytes`, in the given shape. */
function rawMessage(shape: string, bytes: number): Buffer {
  const head = [
    'From: Sender <sender@example.com>',
    'To: inbox@receiving.example.com',
    'Subject: large',
    'Message-ID: <large@example.com>',
    'MIME-Version: 1.0',
  ];
  const boundary = 'b0undary';
  const base64Part = (name: string, size: number) =>
    [
      `--${boundary}`,
      `Content-Type: application/pdf; name="${name}"`,
      'Content-Transfer-Encoding: base64',
      `Content-Disposition: attachment; filename="${name}"`,
      '',
      ...base64Lines(size),
    ].join('\r\n');
  const base64Lines = (size: number) =>
    (Buffer.alloc(size, 7)
      .toString('base64')
      .match(/.{1,76}/g) ?? []) as string[];
  const budget = bytes - 2_000;
  let parts: string[];
  if (shape === 'one attachment') parts = [base64Part('large.pdf', Math.floor((budget * 3) / 4 / 1.027))];
  else if (shape === 'ten attachments')
    parts = Array.from({ length: 10 }, (_, i) => base64Part(`part-${i}.pdf`, Math.floor((budget * 3) / 40 / 1.027)));
  else {
    const line = `${'word '.repeat(14)}=\r\n`;
    const text = line.repeat(Math.floor(budget / 2 / line.length));
    parts = [
      [
        `--${boundary}`,
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: quoted-printable',
        '',
        text,
      ].join('\r\n'),
      [
        `--${boundary}`,
        'Content-Type: text/html; charset=utf-8',
        'Content-Transfer-Encoding: quoted-printable',
        '',
        text,
      ].join('\r\n'),
    ];
  }
  return Buffer.from(
    [...head, `Content-Type: multipart/mixed; boundary="${boundary}"`, '', ...parts, `--${boundary}--`, ''].join(
      '\r\n',
    ),
  );
}

/** In the child: build, parse, report. */
async function measureOne(shape: string): Promise<InboundMemoryRow> {
  const { parseMessage } = await import('../shared/receiving/mime');
  await parseMessage(Buffer.from('From: a@example.com\r\nSubject: warm\r\n\r\nhi')); // modules loaded and warm before the baseline
  const baselineRssMb = process.memoryUsage().rss / 2 ** 20;
  const raw = rawMessage(shape, MAX_PARSE_BYTES);
  const before = process.cpuUsage();
  const parsed = await parseMessage(raw);
  const cpu = process.cpuUsage(before);
  if (parsed.attachments.length === 0 && !parsed.text) throw new Error('nothing parsed');
  return {
    shape,
    rawMb: raw.length / 2 ** 20,
    baselineRssMb,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    parseCpuMs: (cpu.user + cpu.system) / 1000,
  };
}

export async function benchInboundMemory(): Promise<InboundMemoryRow[]> {
  const rows: InboundMemoryRow[] = [];
  for (const shape of Object.keys(SHAPES)) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', __filename, '--child', shape], {
      cwd: join(__dirname, '..'),
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    const line = child.stdout.split('\n').find((l) => l.startsWith('{'));
    if (child.status !== 0 || !line)
      throw new Error(`inbound parse of ${shape} failed (exit ${child.status}):\n${child.stderr.slice(-2000)}`);
    rows.push(JSON.parse(line) as InboundMemoryRow);
  }
  return rows;
}

export function formatInboundMemory(rows: InboundMemoryRow[]): string {
  const inbound = workers.find((w) => w.name === 'inbound');
  const timeout = inbound ? workerTimeoutSeconds(inbound) : NaN;
  return [
    `A fresh process per shape; the worker has ${INBOUND_WORKER_MEMORY_MB} MB and ${timeout} s, one message per invocation.`,
    '',
    '| message (raw) | shape | process before (MB) | peak RSS (MB) | peak over the process (x raw) | parse CPU (s) |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.rawMb.toFixed(1)} MB | ${r.shape}: ${SHAPES[r.shape]} | ${r.baselineRssMb.toFixed(0)} | ${r.peakRssMb.toFixed(0)} | ${(r.peakRssMb - r.baselineRssMb).toFixed(0)} MB (${((r.peakRssMb - r.baselineRssMb) / r.rawMb).toFixed(1)}x) | ${(r.parseCpuMs / 1000).toFixed(2)} |`,
    ),
  ].join('\n');
}

if (require.main === module) {
  if (process.argv[2] === '--child') {
    measureOne(process.argv[3]).then(
      (row) => {
        console.log(JSON.stringify(row));
        process.exit(0);
      },
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  } else {
    void benchInboundMemory().then((rows) => console.log(formatInboundMemory(rows)));
  }
}
