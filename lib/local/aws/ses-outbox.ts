/**
 * What the local SES must not lose when the runtime is killed: the mail it accepted (SES keeps what
 * it took; aws-ses-v2-local keeps it in memory only) and the events each accepted send still owes
 * the feedback queues (SES publishes them however long after; the runtime published them from a
 * timer). Kept in one append-only journal, DATA_DIR/ses-outbox.jsonl:
 *
 * - `{"mail": <the stored message>}` once SES accepted a send, before its answer leaves;
 * - `{"owed": <SES message id>, "events": [...]}` in the same moment: the events still to publish;
 * - `{"published": <SES message id>}` once they are on their queues;
 * - `{"cleared": true}` when the mail viewer's store was cleared (its POST /clear-store).
 *
 * On start the mail goes back into aws-ses-v2-local's store (the mail viewer shows it again) and
 * owed events are published again: at least once, as SNS delivers, and the consumers are
 * idempotent (a kill between publishing and its `published` line sends them twice). The journal is
 * then written again without what was published. Written synchronously, without fsync: a SIGKILL
 * loses nothing confirmed, a power loss may.
 */
import { closeSync, existsSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';

interface Owed<Event> {
  messageId: string;
  events: Event[];
}

type Line<Mail, Event> = { mail: Mail } | { owed: string; events: Event[] } | { published: string } | { cleared: true };

export class SesOutbox<Mail, Event> {
  private fd?: number;

  /** `file` undefined: nothing is kept (the in-memory runtime of the tests). */
  constructor(private readonly file: string | undefined) {}

  /** Reads the journal (a line torn by a kill mid-write is dropped), rewrites it without what was published, and opens it for appending. */
  open(): { mail: Mail[]; owed: Owed<Event>[] } {
    if (!this.file) return { mail: [], owed: [] };
    const mail: Mail[] = [];
    const owed = new Map<string, Event[]>();
    if (existsSync(this.file)) {
      for (const text of readFileSync(this.file, 'utf8').split('\n')) {
        let line: Line<Mail, Event>;
        try {
          line = JSON.parse(text);
        } catch {
          continue; // empty, or torn
        }
        if ('mail' in line) mail.push(line.mail);
        else if ('cleared' in line) mail.length = 0;
        else if ('owed' in line) owed.set(line.owed, line.events);
        else if ('published' in line) owed.delete(line.published);
      }
    }
    const kept = [...mail.map((m) => ({ mail: m })), ...[...owed].map(([messageId, events]) => ({ owed: messageId, events }))];
    writeFileSync(`${this.file}.tmp`, kept.map((line) => `${JSON.stringify(line)}\n`).join(''));
    renameSync(`${this.file}.tmp`, this.file);
    this.fd = openSync(this.file, 'a');
    return { mail, owed: [...owed].map(([messageId, events]) => ({ messageId, events })) };
  }

  /** An accepted send: its stored message and the events it owes, kept before SES's answer leaves. */
  accepted(mail: Mail | undefined, messageId: string, events: Event[]): void {
    if (mail !== undefined) this.append({ mail });
    if (events.length > 0) this.append({ owed: messageId, events });
  }

  /** The mail viewer's store was cleared (POST /clear-store): the mail so far does not come back either. */
  cleared(): void {
    this.append({ cleared: true });
  }

  published(messageId: string): void {
    this.append({ published: messageId });
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private append(line: Line<Mail, Event>): void {
    if (this.fd !== undefined) writeSync(this.fd, `${JSON.stringify(line)}\n`);
  }
}
