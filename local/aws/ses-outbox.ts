/**
 * What the local SES must not lose when the runtime is killed: the mail it accepted (SES keeps what
 * it took; aws-ses-v2-local keeps it in memory only) and the events each accepted send still owes
 * the feedback queues (SES publishes them however long after; the runtime published them from a
 * timer). Kept in a journal (./journal.ts: append-only, a torn last line dropped, compacted at
 * open) under DATA_DIR/ses-outbox, of these records:
 *
 * - `{"mail": <the stored message>}` once SES accepted a send, before its answer leaves;
 * - `{"owed": <SES message id>, "events": [...]}` in the same moment: the events still to publish;
 * - `{"published": <SES message id>}` once they are on their queues;
 * - `{"cleared": true}` when the mail viewer's store was cleared (its POST /clear-store).
 *
 * On start the mail goes back into aws-ses-v2-local's store (the mail viewer shows it again) and
 * owed events are published again: at least once, as SNS delivers, and the consumers are
 * idempotent (a kill between publishing and its `published` line sends them twice).
 */
import { Journal } from './journal';

interface Owed<Event> {
  messageId: string;
  events: Event[];
}

type Line<Mail, Event> = { mail: Mail } | { owed: string; events: Event[] } | { published: string } | { cleared: true };

export class SesOutbox<Mail, Event> {
  private journal?: Journal<Line<Mail, Event>>;
  private readonly mail: Mail[] = [];
  private readonly owed = new Map<string, Event[]>();

  /** `dir` undefined: nothing is kept (the in-memory runtime of the tests). */
  constructor(private readonly dir: string | undefined) {}

  /** Replays the journal (rewritten without what was published) and keeps it open: what was accepted, and what is still owed. */
  open(): { mail: Mail[]; owed: Owed<Event>[] } {
    if (!this.dir) return { mail: [], owed: [] };
    this.journal = new Journal<Line<Mail, Event>>({
      dir: this.dir,
      apply: (line) => this.apply(line),
      snapshot: () => [
        ...this.mail.map((mail) => ({ mail })),
        ...[...this.owed].map(([owed, events]) => ({ owed, events })),
      ],
    });
    return { mail: [...this.mail], owed: [...this.owed].map(([messageId, events]) => ({ messageId, events })) };
  }

  /** An accepted send: its stored message and the events it owes, kept before SES's answer leaves. */
  accepted(mail: Mail | undefined, messageId: string, events: Event[]): void {
    if (mail !== undefined) this.write({ mail });
    if (events.length > 0) this.write({ owed: messageId, events });
  }

  /** The mail viewer's store was cleared (POST /clear-store): the mail so far does not come back either. */
  cleared(): void {
    this.write({ cleared: true });
  }

  published(messageId: string): void {
    this.write({ published: messageId });
  }

  close(): void {
    this.journal?.close();
    this.journal = undefined;
  }

  private apply(line: Line<Mail, Event>): void {
    if ('mail' in line) this.mail.push(line.mail);
    else if ('cleared' in line) this.mail.length = 0;
    else if ('owed' in line) this.owed.set(line.owed, line.events);
    else if ('published' in line) this.owed.delete(line.published);
  }

  /** Applied to the state a compaction snapshots, and written at once. */
  private write(line: Line<Mail, Event>): void {
    if (!this.journal) return;
    this.apply(line);
    this.journal.record(line);
    this.journal.flush();
  }
}
