/**
 * The address shapes of the API (zod): what `from`, `to`, `cc`, `bcc` and `reply_to` take, on
 * POST /emails, templates and broadcasts alike. The checks are ./addresses.ts's, which workers use
 * without zod.
 */
import * as z from 'zod/mini';
import { mailboxProblem } from './addresses';

/**
 * One mailbox: `addr`, `<addr>`, `Name <addr>` or `"Name" <addr>`, read as SES will read it
 * (shared/platform/mail/addresses.ts: exactly one mailbox, no groups or comments, no address or control
 * characters in the display name).
 */
const mailbox = (role: 'from' | 'recipient') =>
  z.string().check(
    z.trim(),
    z.superRefine((value, ctx) => {
      const problem = mailboxProblem(value, role);
      if (problem) ctx.addIssue({ code: 'custom', input: value, message: problem });
    }),
  );
export const address = /* @__PURE__ */ (() => mailbox('recipient'))();
/** A From: one mailbox whose display name takes no `,` or `;` either (its domain is checked against the project's when sending). */
export const fromAddress = /* @__PURE__ */ (() => mailbox('from'))();
export const addresses = /* @__PURE__ */ (() =>
  z.union([address, z.array(address).check(z.minLength(1), z.maxLength(50))]))();
