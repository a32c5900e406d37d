/**
 * An email's content, stored once (DESIGN.md, "Production truth"): its html, text, custom headers
 * and attachments are one object in the content bucket (`emails/<project id>/<email id>.json`),
 * written when the email is accepted (before the transaction that accepts it, so a committed email
 * always has its content; a content object whose email never committed is left to the bucket's
 * lifecycle) and never rewritten. The email's status item keeps only the envelope, so each status
 * change updates a small item and no event copies a body.
 *
 * Why S3 and not a write-once DynamoDB item: a 20 KB body costs 20 write units in DynamoDB (and
 * 20 KB of storage at DynamoDB's price, and 5 read units at each read), one PUT request in S3; the
 * cost table in bench/RESULTS.md compares them. Objects are encrypted (SSE-S3) and expire by the
 * bucket's lifecycle rule (lib/constructs/content-bucket.ts); locally the S3 stand-in serves them.
 */
import { getObject, putObject } from '../platform/aws/s3';
import type { InlineAttachment, StoredAttachment } from './attachments';

export interface EmailContent {
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  /** listed; their bytes are objects of their own (./attachments.ts). Content stored before that holds them inline (base64). */
  attachments?: (StoredAttachment | InlineAttachment)[];
}

/** The object key of an email's content: under its project, so one project's content is one prefix. */
export const contentKey = (projectId: string, emailId: string): string => `emails/${projectId}/${emailId}.json`;

/**
 * The object key of a test-mode email's rendered message (shared/emails/test-mode-send.ts): beside
 * its content, so it expires with it by the same lifecycle rule.
 */
export const renderedMessageKey = (projectId: string, emailId: string): string => `emails/${projectId}/${emailId}.eml`;

/** The content's size as stored (what a PUT carries). */
export const contentBytes = (content: EmailContent): number => Buffer.byteLength(JSON.stringify(content));

export async function putEmailContent(projectId: string, emailId: string, content: EmailContent): Promise<void> {
  await putObject(contentKey(projectId, emailId), Buffer.from(JSON.stringify(content)), 'application/json', 'content');
}

/** PUTs at a time when a request or a fan-out page stores many emails' content. */
const PARALLEL_PUTS = 16;

/** Stores the content of many emails, PARALLEL_PUTS at a time. */
export async function putEmailContents(
  projectId: string,
  contents: { emailId: string; content: EmailContent }[],
): Promise<void> {
  for (let i = 0; i < contents.length; i += PARALLEL_PUTS) {
    await Promise.all(
      contents.slice(i, i + PARALLEL_PUTS).map(({ emailId, content }) => putEmailContent(projectId, emailId, content)),
    );
  }
}

/** The email's content; undefined when there is none (it expired, or the email never had any stored). */
export async function getEmailContent(projectId: string, emailId: string): Promise<EmailContent | undefined> {
  const body = await getObject(contentKey(projectId, emailId), 'content');
  return body ? (JSON.parse(body.toString('utf8')) as EmailContent) : undefined;
}
