/**
 * The local SES: aws-ses-v2-local (the mail viewer's store) behind the SES front (./ses-front.ts:
 * signatures, identities, tenants, send rate), the outbox that keeps what it accepted and the
 * events it still owes across a kill (./ses-outbox.ts), and the events themselves, published to
 * the feedback queues as SES's SNS destination would (./ses-events.ts). Started by the runtime
 * (../runtime.ts) after the local SQS; the control API's drain watches what it still owes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SesEvent } from '../../shared/emails/simulated-outcomes';
import type { LocalClock } from '../clock';
import type { Watched } from '../control';
import type { LocalSettings } from '../settings';
import type { StandInCredentials } from './credentials';
import { publishSesEvents, simulatedEvents } from './ses-events';
import { SesFront } from './ses-front';
import { SesOutbox } from './ses-outbox';
import { sdkLogger } from '../../shared/platform/aws/sdk-logger';

/** How long after a send's first SES event its delivery and feedback come (on the runtime's clock). */
const SES_EVENT_GAP_MS = 200;

export interface LocalSesOptions {
  settings: LocalSettings;
  clock: LocalClock;
  credentials: StandInCredentials;
  region: string;
  sqsEndpoint: string;
  log: (line: string) => void;
  /** where it adds what stops it, in the order to undo (the runtime runs them backwards) */
  cleanups: (() => Promise<void>)[];
  closeServer: (server: Server) => Promise<void>;
}

export interface LocalSes {
  endpoint: string;
  port: number;
  mailViewerUrl: string;
  mailViewerPort: number;
  /** the client its events go out through (inbound SMTP's notifications take it too) */
  eventsSqs: SQSClient;
  /** publishes the events a send owed when the runtime last stopped: once the queues exist */
  publishOwedSinceLastStart(): void;
  /** what the control API's drain watches: events in flight or due */
  watched: Watched;
}

export async function startLocalSes(options: LocalSesOptions): Promise<LocalSes> {
  const { settings, clock, credentials, region, sqsEndpoint, log, cleanups, closeServer } = options;
  const sesEventsSqs = new SQSClient({ endpoint: sqsEndpoint, region, credentials, logger: sdkLogger });
  // aws-ses-v2-local on a port nobody is told about: the SES front answers for it on both the
  // SES endpoint and the mail viewer's port (local/aws/ses-front.ts says why).
  const { default: startSes } = await import('aws-ses-v2-local');
  const { getStoreReadonly } = await import('aws-ses-v2-local/dist/store');
  type StoredMail = ReturnType<typeof getStoreReadonly>['emails'][number];
  // What the local SES accepted and the events it still owes survive a kill (local/aws/ses-outbox.ts).
  const sesOutbox = new SesOutbox<StoredMail, SesEvent>(
    settings.inMemory ? undefined : join(settings.dataDir, 'ses-outbox'),
  );
  const kept = sesOutbox.open();
  cleanups.push(async () => sesOutbox.close());
  getStoreReadonly().emails.push(...kept.mail);
  /** The message aws-ses-v2-local just stored for this send (the newest ones are last). */
  const storedMail = (messageId: string) =>
    getStoreReadonly().emails.findLast((email) => email.messageId === messageId);
  /**
   * Delivery and feedback come a moment (SES_EVENT_GAP_MS on the clock) after the send's first
   * event; then the outbox owes nothing for it. The control API's drain waits for what is due by
   * its deadline (on a manual clock: what is due now); the rest waits for the clock to move.
   */
  const sesPublishing = { firstInFlight: 0, published: 0, dueAt: new Map<string, number>() };
  const publishOwed = (messageId: string, events: SesEvent[]) => {
    const [first, ...rest] = events;
    const dueAt = clock.now() + SES_EVENT_GAP_MS;
    sesPublishing.firstInFlight++;
    sesPublishing.dueAt.set(messageId, dueAt);
    publishSesEvents(sesEventsSqs, [first])
      .finally(() => sesPublishing.firstInFlight--)
      .then(() => new Promise((resolve) => clock.at(dueAt, () => resolve(undefined))))
      .then(() => publishSesEvents(sesEventsSqs, rest))
      .then(() => sesOutbox.published(messageId))
      .finally(() => {
        sesPublishing.dueAt.delete(messageId);
        sesPublishing.published++;
      })
      .catch((error) =>
        log(
          JSON.stringify({
            level: 'ERROR',
            message: 'publishing SES events failed; published again at the next start',
            error: String(error),
          }),
        ),
      );
  };
  // aws-ses-v2-local takes any request that names some `Authorization`, and its /store shows every
  // project's mail: it listens on a socket in a folder only this user may enter (no port at all),
  // and only the SES front (which checks signatures) talks to it.
  const sesStoreDir = mkdtempSync(join(tmpdir(), 'email-service-ses-'));
  cleanups.push(async () => rmSync(sesStoreDir, { recursive: true, force: true }));
  const sesStoreSocket =
    process.platform === 'win32' ? `\\\\.\\pipe\\${basename(sesStoreDir)}` : join(sesStoreDir, 'ses.sock');
  const sesServer = await startSes({ host: '127.0.0.1', port: sesStoreSocket as unknown as number }); // a path: net.Server listens on the socket
  cleanups.push(() => closeServer(sesServer));
  const sesFront = new SesFront({
    host: '127.0.0.1',
    port: 0,
    upstream: { socketPath: sesStoreSocket },
    hasMessage: (messageId) => getStoreReadonly().emails.some((email) => email.messageId === messageId),
    restoreAttachments: (messageId, contents) => {
      const stored = getStoreReadonly().emails.find((email) => email.messageId === messageId);
      for (const [i, attachment] of (stored?.attachments ?? []).entries())
        Object.assign(attachment, { content: contents[i], size: Buffer.byteLength(contents[i], 'base64') });
    },
    stateFile: settings.inMemory ? undefined : join(settings.dataDir, 'ses-identities.json'),
    verifyDelayMs: settings.sesVerifyDelayMs,
    maxSendRate: settings.sesMaxSendRate,
    max24HourSend: settings.sesMax24HourSend,
    // As if every configuration set had the SNS event destination: SES events to the feedback queues;
    // opens and clicks only where the set's destination publishes them (the domain tracks them), as on SES.
    // The mail and the events it owes are kept in the outbox before SES's answer leaves.
    onClearStore: () => sesOutbox.cleared(),
    credentials,
    onSent: ({ request, messageId, eventTypes }) => {
      const events = request.ConfigurationSetName
        ? simulatedEvents(request, messageId, new Date(clock.now()), {
            open: eventTypes.includes('OPEN'),
            click: eventTypes.includes('CLICK'),
          })
        : [];
      sesOutbox.accepted(storedMail(messageId), messageId, events);
      if (events.length > 0) publishOwed(messageId, events);
    },
  });
  const sesFrontServer = await sesFront.start();
  cleanups.push(() => closeServer(sesFrontServer));
  const sesEndpoint = `http://127.0.0.1:${sesFront.port}`;
  const mailViewerServer = await sesFront.startViewer(settings.sesPort);
  cleanups.push(() => closeServer(mailViewerServer));
  const mailViewerPort = (mailViewerServer.address() as AddressInfo).port;
  const mailViewerUrl = `http://127.0.0.1:${mailViewerPort}`;

  const sesDue = (before: number) => [...sesPublishing.dueAt.values()].filter((at) => at <= before).length;
  return {
    endpoint: sesEndpoint,
    port: sesFront.port,
    mailViewerUrl,
    mailViewerPort,
    eventsSqs: sesEventsSqs,
    publishOwedSinceLastStart: () => {
      for (const { messageId, events } of kept.owed) publishOwed(messageId, events);
    },
    watched: {
      kind: 'ses',
      name: 'ses',
      busy: (before) => sesPublishing.firstInFlight + sesDue(before),
      later: (before) => sesPublishing.dueAt.size - sesDue(before),
      handled: () => sesPublishing.published,
    },
  };
}
