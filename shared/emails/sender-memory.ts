/**
 * The sender's memory budget (issue 32, 3): a sender invocation takes up to 10 emails at once
 * (functions/workers.ts senderScaling), each of up to 10 MB of content (MAX_EMAIL_CONTENT_BYTES)
 * and 28 MB of attachments (MAX_ATTACHMENT_BYTES), in 256 MB (WORKER_MEMORY_MB). So each email
 * reserves what it will hold BEFORE it reads its content or attachments, and waits while the
 * emails in flight already hold the budget: small emails go side by side as before, large ones one
 * at a time.
 *
 * The arithmetic (bytes an email holds at its peak, per byte stored):
 * - attachments, A bytes: the raw bytes read from S3 (A), base64'd by the SDK into the SendEmail
 *   JSON (4/3 A, x1.37 with JSON's escapes), that JSON string once more as the request's bytes
 *   (1.37 A): about 3.7 A, ATTACHMENT_FACTOR 4 with room. (Test mode renders MIME instead: base64
 *   with line breaks, 1.37 A, and the rendered bytes once more: less.) bench/sender-memory.ts
 *   measured 934 MB held for 10 emails of 28 MiB: 3.3 A each.
 * - content, C bytes (the stored JSON): the bytes read (C), its parsed strings (C, 2 C for text
 *   outside Latin-1), copied into the SendEmail JSON and its bytes (2 C): CONTENT_FACTOR 4.
 * - The largest email: 4 x 10 MB + 4 x 28 MB = 152 MB. The budget: 256 MB less 64 MB for the
 *   Node process on Lambda (local/memory-watch.ts LAMBDA_BASELINE_MB) less 32 MB for the SDK
 *   clients and everything else = SENDER_MEMORY_BUDGET_BYTES, 160 MB. The largest email fits alone;
 *   ten of 1 MB (40 MB) fit together; ten of the largest, which held 998 MB at once before, now
 *   go one after another.
 * - An email that waits past its invocation's time for the budget writes nothing and comes back
 *   (as one that finds no send slot: shared/emails/sender.ts `{waitSeconds}`).
 *
 * Where the sizes come from: the email's item, before anything else is read: `content_bytes`
 * (written at acceptance) and `attachment_bytes` (the `content` attachments' at acceptance, all of
 * them once the fetch stage stored the `path` ones: ./attachment-fetch.ts). An item without
 * `content_bytes` (a broadcast email, or one accepted before the sizes were recorded) is counted
 * from its content object's size (one HEAD), with no attachments if it is a broadcast's (they have
 * none) and the whole budget if not (its attachments are unknown: it goes alone).
 */
import { headObject } from '../platform/aws/s3';
import { contentKey } from './content';
import type { EmailItem } from './emails';

export const ATTACHMENT_FACTOR = 4;
export const CONTENT_FACTOR = 4;
const MB = 1024 * 1024;
/** What the emails in flight in one sender instance may hold together (the module comment's arithmetic). */
export const SENDER_MEMORY_BUDGET_BYTES = (256 - 64 - 32) * MB;

/** The bytes an email will hold at its peak in the sender (the module comment), at most the whole budget. */
export async function sendFootprint(
  email: Pick<EmailItem, 'project_id' | 'id' | 'broadcast_id' | 'content_bytes' | 'attachment_bytes'>,
): Promise<number> {
  let content = email.content_bytes;
  if (content === undefined) {
    content = (await headObject(contentKey(email.project_id, email.id), 'content'))?.size ?? 0;
    if (!email.broadcast_id) return SENDER_MEMORY_BUDGET_BYTES;
  }
  return Math.min(
    SENDER_MEMORY_BUDGET_BYTES,
    CONTENT_FACTOR * content + ATTACHMENT_FACTOR * (email.attachment_bytes ?? 0),
  );
}

/**
 * A budget of bytes shared by the sends of one instance. `take` waits, first come first served
 * (a large email is never overtaken for ever by small ones), until its bytes fit beside those in
 * flight, or nothing is in flight; it answers a release, or undefined at `deadline` (epoch ms).
 */
export class MemoryBudget {
  private used = 0;
  private readonly waiting: { bytes: number; grant: () => void }[] = [];
  constructor(readonly limit: number) {}

  async take(bytes: number, deadline: number): Promise<(() => void) | undefined> {
    const size = Math.min(bytes, this.limit);
    if (!this.waiting.length && this.fits(size)) return this.hold(size);
    let granted = false;
    let entry!: { bytes: number; grant: () => void };
    const turn = new Promise<void>((resolve) => {
      entry = {
        bytes: size,
        grant: () => {
          granted = true;
          resolve();
        },
      };
      this.waiting.push(entry);
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      turn,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now())))),
    ]);
    clearTimeout(timer);
    if (granted) return this.hold(size, true);
    this.waiting.splice(this.waiting.indexOf(entry), 1); // not granted: still waiting
    this.next();
    return undefined;
  }

  /** bytes held now (for tests and logs) */
  get inUse(): number {
    return this.used;
  }

  private fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.limit;
  }

  /** `counted`: the bytes were added when the turn was granted */
  private hold(bytes: number, counted = false): () => void {
    if (!counted) this.used += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= bytes;
      this.next();
    };
  }

  private next(): void {
    while (this.waiting.length && this.fits(this.waiting[0].bytes)) {
      const first = this.waiting.shift()!;
      this.used += first.bytes;
      first.grant();
    }
  }
}
