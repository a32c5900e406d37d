import * as z from 'zod/mini';
import { isAddress } from '../emails/addresses';
import { defineOperation } from '../platform/http/operation';
import { UUID_PATTERN } from '../platform/ids';
import { commonErrors, deleted, listOf, listQuery, notFoundResponse } from '../platform/http/schemas';
import { createSuppressionBody, SUPPRESSION_SOURCES, suppression } from './model';

const rules =
  'One entry per address per project, compared case-insensitively; `email` is stored lower-cased. ' +
  'SES feedback writes `bounce` entries for Permanent bounces only (subtype = the SES bounce subtype, reason = the SMTP ' +
  'diagnostic code or a short description, message_id = the email) and `complaint` entries for complaints (subtype = the ' +
  'feedback type, null when none); a `not-spam` complaint withdraws an earlier complaint entry. The sender skips every ' +
  'suppressed recipient.';

const idOrEmail = z.strictObject({
  id_or_email: z.string().check(z.refine((v) => UUID_PATTERN.test(v) || isAddress(v), 'must be a suppression id (UUID) or an email address')),
});

export const create = defineOperation({
  operationId: 'createSuppression',
  summary: 'Suppress an address',
  description: `Adds a \`manual\` entry (subtype and message_id null, reason as given): 201. An address that is already suppressed keeps its entry, whatever its source, and the answer is 200 with that entry. ${rules}`,
  tags: ['Suppressions'],
  auth: 'api_key',
  body: createSuppressionBody,
  responses: {
    201: { description: 'The new entry', schema: suppression },
    200: { description: 'The address was already suppressed: its existing entry', schema: suppression },
    ...commonErrors,
  },
});

export const list = defineOperation({
  operationId: 'listSuppressions',
  summary: 'List suppressed addresses, newest first',
  description: `\`source\` keeps only the entries of that source. ${rules}`,
  tags: ['Suppressions'],
  auth: 'api_key',
  query: z.extend(listQuery, { source: z.optional(z.enum(SUPPRESSION_SOURCES)) }),
  responses: { 200: { description: 'A page of suppressions', schema: listOf(suppression) }, ...commonErrors },
});

export const get = defineOperation({
  operationId: 'getSuppression',
  summary: 'Retrieve a suppression by id or by address',
  description: "The path takes the entry's id or the suppressed address (URL-encoded, any case).",
  tags: ['Suppressions'],
  auth: 'api_key',
  params: idOrEmail,
  responses: { 200: { description: 'The suppression', schema: suppression }, ...commonErrors, 404: notFoundResponse },
});

export const remove = defineOperation({
  operationId: 'deleteSuppression',
  summary: 'Remove a suppression, by id or by address',
  description: "The address can be mailed again at once. The path takes the entry's id or the address. A second delete is 404.",
  tags: ['Suppressions'],
  auth: 'api_key',
  params: idOrEmail,
  responses: { 200: { description: 'The entry is gone', schema: deleted('suppression') }, ...commonErrors, 404: notFoundResponse },
});
