/**
 * Delivers one message to the local runtime's inbound SMTP server (LOCAL_SMTP_PORT, written to
 * runtime.json as `smtpPort`), the way a sending mail server would: one session, every reply
 * checked. Returns the SES-style message id of the 250 reply to DATA.
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';

const smtpPort = (): number => {
  const dataDir = process.env.TEST_DATA_DIR;
  if (!dataDir) throw new Error('TEST_DATA_DIR is not set: run the suites through jest');
  return (JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as { smtpPort: number }).smtpPort;
};

/** Reads complete SMTP replies (the last line has a space after the code) off the socket. */
function replies(socket: Socket): (code: number) => Promise<string> {
  let buffer = '';
  let waiting: ((reply: string) => void) | undefined;
  const flush = () => {
    const match = /^(?:\d{3}-.*\r\n)*\d{3} .*\r\n/.exec(buffer);
    if (match && waiting) {
      buffer = buffer.slice(match[0].length);
      const resolve = waiting;
      waiting = undefined;
      resolve(match[0]);
    }
  };
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    flush();
  });
  return async (code) => {
    const reply = await new Promise<string>((resolve) => {
      waiting = resolve;
      flush();
    });
    if (!reply.startsWith(String(code))) throw new Error(`SMTP: expected ${code}, got ${reply.trim()}`);
    return reply;
  };
}

/** `lines` are the message's header and body lines (no dot at the start of a line), joined with CRLF. */
export async function deliverMail(from: string, to: string[], lines: string[]): Promise<string> {
  const socket = connect(smtpPort(), '127.0.0.1');
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const expect = replies(socket);
  const command = (line: string, code: number) => {
    socket.write(`${line}\r\n`);
    return expect(code);
  };
  try {
    await expect(220);
    await command('EHLO test.local', 250);
    await command(`MAIL FROM:<${from}>`, 250);
    for (const recipient of to) await command(`RCPT TO:<${recipient}>`, 250);
    await command('DATA', 354);
    const reply = await command(`${lines.join('\r\n')}\r\n.`, 250);
    await command('QUIT', 221).catch(() => undefined);
    return /queued as (\S+)/.exec(reply)?.[1] ?? '';
  } finally {
    socket.destroy();
  }
}

/** A file attached to a message (`type` its Content-Type, e.g. `application/gzip`). */
export interface Attachment {
  name: string;
  type: string;
  bytes: Uint8Array;
}

/**
 * Delivers a multipart/mixed message from `from` to `to`: a text part, then each file base64-encoded
 * as an attachment (a DMARC or TLS reporter's mail is this shape). Returns what `deliverMail` does.
 */
export function deliverAttachments(message: {
  from: string;
  to: string;
  subject: string;
  text: string;
  files: Attachment[];
}): Promise<string> {
  const boundary = `b-${Math.random().toString(36).slice(2)}`;
  return deliverMail(
    message.from,
    [message.to],
    [
      `From: ${message.from}`,
      `To: ${message.to}`,
      `Subject: ${message.subject}`,
      'MIME-Version: 1.0',
      `Content-Type: multipart/mixed; boundary="${boundary}"`,
      '',
      `--${boundary}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      message.text,
      ...message.files.flatMap((file) => [
        `--${boundary}`,
        `Content-Type: ${file.type}; name="${file.name}"`,
        'Content-Transfer-Encoding: base64',
        `Content-Disposition: attachment; filename="${file.name}"`,
        '',
        ...(Buffer.from(file.bytes)
          .toString('base64')
          .match(/.{1,76}/g) ?? []),
      ]),
      `--${boundary}--`,
    ],
  );
}
