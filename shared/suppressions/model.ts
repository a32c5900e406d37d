/**
 * The suppression list's model: the entry as the API shows it, its sources, and what POST
 * /suppressions takes. The logic (suppressions.ts, feedback.ts) uses the types derived here.
 */
import * as z from 'zod/mini';
import { BARE_ADDRESS, MAX_ADDRESS_LENGTH } from '../emails/addresses';
import { id, timestamp } from '../platform/http/schemas';

export const SUPPRESSION_SOURCES = ['bounce', 'complaint', 'manual'] as const;
export type SuppressionSource = (typeof SUPPRESSION_SOURCES)[number];

const address = z.string().check(z.trim(), z.maxLength(MAX_ADDRESS_LENGTH), z.regex(BARE_ADDRESS, 'must be an email address'));

export const suppression = z.object({
  object: z.literal('suppression'),
  id,
  email: z.string(),
  source: z.enum(SUPPRESSION_SOURCES),
  subtype: z.nullable(z.string()),
  reason: z.nullable(z.string()),
  message_id: z.nullable(z.string()),
  created_at: timestamp,
});
export type Suppression = z.output<typeof suppression>;

/** What a writer supplies for a new entry; id and created_at are made on insert. */
export type SuppressionEntry = Pick<Suppression, 'email' | 'source' | 'subtype' | 'reason' | 'message_id'>;

export const createSuppressionBody = z.strictObject({ email: address, reason: z.optional(z.string().check(z.maxLength(1000))) });
export type CreateSuppressionInput = z.output<typeof createSuppressionBody>;
