import * as z from 'zod/mini';
import { isAddress } from '../platform/mail/addresses';
import { defineOperation } from '../platform/http/operation';
import { UUID_PATTERN } from '../platform/ids';
import { commonErrors, deleted, listOf, listQuery, notFoundResponse } from '../platform/http/schemas';
import {
  batchAddBody,
  batchAdded,
  batchRemoveBody,
  batchRemoved,
  createSuppressionBody,
  MAX_BATCH_SUPPRESSIONS,
  SUPPRESSION_SOURCES,
  suppression,
} from './model';

const rules =
  'One entry per address per project, compared case-insensitively; `email` is stored lower-cased. ' +
  'SES feedback writes `bounce` entries for Permanent bounces only (subtype = the SES bounce subtype, reason = the SMTP ' +
  'diagnostic code or a short description, message_id = the email) and `complaint` entries for complaints (subtype = the ' +
  'feedback type, null when none); a `not-spam` complaint withdraws an earlier complaint entry. The sender skips every ' +
  "suppressed recipient. Every entry carries Resend's names beside the contract's: `origin` (= `source`) and `source_id` (= `message_id`).";

const idOrEmail = /* @__PURE__ */ (() =>
  z.strictObject({
    id_or_email: z
      .string()
      .check(
        z.refine((v) => UUID_PATTERN.test(v) || isAddress(v), 'must be a suppression id (UUID) or an email address'),
      ),
  }))();

export const create = /* @__PURE__ */ (() =>
  defineOperation({
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
  }))();

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listSuppressions',
    summary: 'List suppressed addresses, newest first',
    description: `\`source\` keeps only the entries of that source; \`origin\` is Resend's name for the same filter (the SDK's \`list({ origin })\`), and the two may not differ. ${rules}`,
    tags: ['Suppressions'],
    auth: 'api_key',
    query: z
      .extend(listQuery, {
        source: z.optional(z.enum(SUPPRESSION_SOURCES)),
        origin: z.optional(z.enum(SUPPRESSION_SOURCES)),
      })
      .check(
        z.refine((q) => !(q.source && q.origin && q.source !== q.origin), {
          message: 'origin is the same filter as source: give one, or the same value',
          path: ['origin'],
        }),
      ),
    responses: { 200: { description: 'A page of suppressions', schema: listOf(suppression) }, ...commonErrors },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getSuppression',
    summary: 'Retrieve a suppression by id or by address',
    description: "The path takes the entry's id or the suppressed address (URL-encoded, any case).",
    tags: ['Suppressions'],
    auth: 'api_key',
    params: idOrEmail,
    responses: { 200: { description: 'The suppression', schema: suppression }, ...commonErrors, 404: notFoundResponse },
  }))();

export const remove = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteSuppression',
    summary: 'Remove a suppression, by id or by address',
    description:
      "The address can be mailed again at once. The path takes the entry's id or the address. A second delete is 404.",
    tags: ['Suppressions'],
    auth: 'api_key',
    params: idOrEmail,
    responses: {
      200: { description: 'The entry is gone', schema: deleted('suppression') },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

const batchRules =
  `At most ${MAX_BATCH_SUPPRESSIONS} per call (Resend's bound), all valid or a 422 naming each bad index (\`emails.3\`). ` +
  'Answers `{data: [...]}`, one item per requested value in the order given (a value named twice, in any case, is one entry answered at both). ' +
  'Each entry is written with its event in one transaction; 33 entries fit one, so a call of 100 commits in four. A failure between them ' +
  'leaves the earlier ones done (with their events) and the later ones not started, never half an entry: calling again with the same ' +
  'body completes it.';

export const batchAdd = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'batchAddSuppressions',
    summary: 'Suppress up to 100 addresses',
    description: `Each address without an entry gets a \`manual\` one (\`created: true\`, with \`suppression.added\`); one already suppressed keeps its entry, whatever its source, and is answered with its id (\`created: false\`, no event), as POST /suppressions answers 200. ${batchRules}`,
    tags: ['Suppressions'],
    auth: 'api_key',
    body: batchAddBody,
    responses: {
      200: { description: 'Each address with its entry', schema: z.object({ data: z.array(batchAdded) }) },
      ...commonErrors,
    },
  }))();

export const batchRemove = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'batchRemoveSuppressions',
    summary: 'Remove up to 100 suppressions, by address or by id',
    description: `Takes \`emails\` or \`ids\`, not both. Each entry found is removed with \`suppression.removed\` (\`deleted: true\`); a value with no entry is \`deleted: false\` (\`id\` null for an address, \`email\` null for an id), not an error, so a retried call succeeds. ${batchRules}`,
    tags: ['Suppressions'],
    auth: 'api_key',
    body: batchRemoveBody,
    responses: {
      200: {
        description: 'Each requested value, removed or not found',
        schema: z.object({ data: z.array(batchRemoved) }),
      },
      ...commonErrors,
    },
  }))();
