/**
 * The local stand-in for SES email receiving: a real SMTP server on loopback (LOCAL_SMTP_PORT,
 * default 2525) that does what the receipt rule of lib/inbound.ts does on AWS: writes each
 * message, byte for byte, into the inbound bucket's folder (`raw/<SES-style message id>`, served
 * by local/aws/s3.ts), then puts the same `Received` notification, in an SNS envelope, on
 * the inbound queue, so the same inbound worker stores it.
 *
 * Like SES it takes any recipient at SMTP time (the worker decides which project, if any, gets
 * the mail) and refuses messages over SES's 40 MB (552, also at `MAIL FROM ... SIZE=`). No AUTH,
 * no STARTTLS: it listens on loopback only. Nothing scans locally, so the verdicts say `DISABLED`.
 * A message is acknowledged (250) only once it is in the folder and on the queue.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';
import { INBOUND_QUEUE, INBOUND_RAW_PREFIX, queueUrlVariable } from '../../functions/workers';
import { formatAddresses } from '../../shared/receiving/mime';
import { snsEnvelope } from './ses-events';
import { writeLocalObject } from './s3';
import { nowDate } from '../../shared/platform/clock';

export const LOCAL_INBOUND_TOPIC_ARN = 'arn:aws:sns:ap-southeast-2:000000000000:inbound-mail';
/** SES's limit for received messages. */
export const MAX_MESSAGE_BYTES = 40 * 1024 * 1024;

export interface SmtpInboundOptions {
  host: string;
  port: number;
  /** the local S3 folder and the bucket in it */
  s3Root: string;
  bucket: string;
  sqs: SQSClient;
  log: (line: string) => void;
}

/** An id shaped like SES's receipt message ids (lower-case letters and digits). */
function sesMessageId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(40), (b) => alphabet[b % alphabet.length]).join('');
}

/** The header block of a raw message (up to the first empty line), which is all the notification needs. */
function headerBlock(raw: Buffer): Buffer {
  const end = raw.indexOf('\r\n\r\n');
  const lfEnd = raw.indexOf('\n\n');
  const cut = [end, lfEnd].filter((i) => i >= 0).sort((a, b) => a - b)[0];
  return cut === undefined ? raw : raw.subarray(0, cut + 2);
}

/** SES's `Received` notification for a message stored by an S3 action (the format SES documents for receipt notifications). */
export async function receiptNotification(input: {
  raw: Buffer;
  messageId: string;
  source: string;
  recipients: string[];
  bucket: string;
  now?: Date;
}) {
  const headers = await PostalMime.parse(headerBlock(input.raw)).catch(() => undefined);
  const timestamp = (input.now ?? nowDate()).toISOString();
  const find = (name: string) => headers?.headers.find((h) => h.key === name)?.value;
  return {
    notificationType: 'Received',
    mail: {
      timestamp,
      source: input.source,
      messageId: input.messageId,
      destination: input.recipients,
      headersTruncated: false,
      headers: (headers?.headers ?? []).map((h) => ({ name: h.originalKey, value: h.value })),
      commonHeaders: {
        ...(find('return-path') ? { returnPath: find('return-path') } : {}),
        from: formatAddresses(headers?.from ? [headers.from] : undefined),
        ...(headers?.date ? { date: headers.date } : {}),
        to: formatAddresses(headers?.to),
        ...(headers?.cc ? { cc: formatAddresses(headers.cc) } : {}),
        ...(headers?.messageId ? { messageId: headers.messageId } : {}),
        subject: headers?.subject ?? '',
      },
    },
    receipt: {
      timestamp,
      processingTimeMillis: 1,
      recipients: input.recipients,
      spamVerdict: { status: 'DISABLED' },
      virusVerdict: { status: 'DISABLED' },
      spfVerdict: { status: 'DISABLED' },
      dkimVerdict: { status: 'DISABLED' },
      dmarcVerdict: { status: 'DISABLED' },
      action: {
        type: 'S3',
        topicArn: LOCAL_INBOUND_TOPIC_ARN,
        bucketName: input.bucket,
        objectKeyPrefix: INBOUND_RAW_PREFIX,
        objectKey: `${INBOUND_RAW_PREFIX}${input.messageId}`,
      },
    },
  };
}

export async function startSmtpInbound(
  options: SmtpInboundOptions,
): Promise<{ server: SMTPServer; port: number; close(): Promise<void> }> {
  const accept = async (raw: Buffer, source: string, recipients: string[]): Promise<string> => {
    const queueUrl = process.env[queueUrlVariable(INBOUND_QUEUE)];
    if (!queueUrl) throw new Error('the inbound queue does not exist yet');
    const messageId = sesMessageId();
    writeLocalObject(options.s3Root, options.bucket, `${INBOUND_RAW_PREFIX}${messageId}`, raw, 'message/rfc822');
    const notification = await receiptNotification({ raw, messageId, source, recipients, bucket: options.bucket });
    await options.sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify(snsEnvelope(notification, LOCAL_INBOUND_TOPIC_ARN)),
      }),
    );
    return messageId;
  };

  const server = new SMTPServer({
    name: 'inbound-smtp.localhost',
    banner: 'email-service local inbound SMTP (stands in for SES email receiving)',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: MAX_MESSAGE_BYTES,
    rejectOversized: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error) => callback(error));
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          const error = Object.assign(
            new Error(`Error: message exceeds fixed maximum message size ${MAX_MESSAGE_BYTES}`),
            { responseCode: 552 },
          );
          return callback(error);
        }
        const source = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const recipients = session.envelope.rcptTo.map((r) => r.address);
        accept(Buffer.concat(chunks), source, recipients).then(
          (messageId) => callback(null, `Ok: queued as ${messageId}`),
          (error) => {
            options.log(
              JSON.stringify({
                level: 'ERROR',
                message: 'local inbound SMTP could not store a message',
                error: String(error),
              }),
            );
            callback(Object.assign(new Error('Error: temporary local failure, try again'), { responseCode: 451 }));
          },
        );
      });
    },
  });
  let listening = false;
  const started = new Promise<void>((resolve, reject) => {
    // SMTPServer re-emits its socket's errors (a port in use, a client's reset): never unhandled
    server.on('error', (error) => {
      if (!listening) reject(error);
      else
        options.log(
          JSON.stringify({ level: 'WARN', message: 'local inbound SMTP connection error', error: String(error) }),
        );
    });
    server.listen(options.port, options.host, () => {
      listening = true;
      resolve();
    });
  });
  await started;
  const { port } = server.server.address() as AddressInfo;
  return {
    server,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
