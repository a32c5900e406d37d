/**
 * Idempotency-Key for POST /emails and /emails/batch (DESIGN.md), kept 24 hours.
 *
 * The record is written in the SAME transaction as the emails it answers for, with a condition
 * that it is new, and it holds the response (the email ids). So there is no "in flight" record
 * to get stuck: a request either committed its emails and the record, or neither. A second
 * request with the key and the same body replays the ids; with another body it is 409
 * `invalid_idempotent_request`. Departure from DESIGN.md's `concurrent_idempotent_requests`: two
 * identical requests racing both get the winner's ids (one send), which no client can tell from
 * a replay, instead of one of them getting a 409.
 *
 * A record past `expires_at` that TTL has not deleted yet counts as absent everywhere: a read
 * ignores it and the write's condition lets a new record replace it.
 * A batch too large for one transaction records `batch_id` too: its emails were staged and
 * committed with this record (shared/emails/emails.ts), so a replay publishes any still staged.
 */
import { createHash } from 'node:crypto';
import * as keys from '../platform/db/keys';
import { getItem, put, type Item, type WriteAction } from '../platform/db/table';
import { badRequest, conflict } from '../platform/errors';
import { now as clockNow } from '../platform/clock';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

export interface IdempotencyRequest {
  projectId: string;
  keyHash: string;
  bodyHash: string;
}

/** The validated key of a request, or undefined when it has none; 400 for a malformed one. */
export function idempotencyRequest(
  projectId: string,
  key: string | undefined,
  body: unknown,
): IdempotencyRequest | undefined {
  if (key === undefined) return undefined;
  if (key.length < 1 || key.length > 256)
    throw badRequest('invalid_idempotency_key', 'Idempotency-Key must be 1-256 characters', 'Idempotency-Key');
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  return { projectId, keyHash: sha(key), bodyHash: sha(JSON.stringify(body)) };
}

/** The tag of the failed condition of `idempotencyWrite`: a request with the key got there first; its record comes with it (`replayOf`). */
export const IDEMPOTENCY_RACE = 'idempotency race';

/** What a previous request with this key committed: its email ids, and its batch when it was staged. */
export interface PreviousResponse {
  email_ids: string[];
  batch_id?: string;
}

/** What a previous request with this key committed, when its body was the same; 409 when it was not. */
export async function previousResponse(request: IdempotencyRequest): Promise<PreviousResponse | undefined> {
  return replayOf(request, await getItem(keys.idempotency(request.projectId, request.keyHash)));
}

/** The same, from the key's record as it was read (or as the failed condition brought it). */
export function replayOf(request: IdempotencyRequest, record: Item | undefined): PreviousResponse | undefined {
  if (!record || record.expires_at * 1000 <= clockNow()) return undefined; // TTL deletion can lag
  if (record.body_hash !== request.bodyHash) {
    throw conflict(
      'invalid_idempotent_request',
      'This Idempotency-Key was used with a different request body',
      'Idempotency-Key',
    );
  }
  return { email_ids: record.email_ids, ...(record.batch_id ? { batch_id: record.batch_id } : {}) };
}

/** The record, new or replacing an expired one (the condition); `batchId` when the emails were staged. */
export function idempotencyWrite(request: IdempotencyRequest, emailIds: string[], batchId?: string): WriteAction {
  const now = Math.floor(clockNow() / 1000);
  const action = put({
    ...keys.idempotency(request.projectId, request.keyHash),
    type: 'idempotency',
    project_id: request.projectId,
    body_hash: request.bodyHash,
    email_ids: emailIds,
    ...(batchId ? { batch_id: batchId } : {}),
    expires_at: now + IDEMPOTENCY_TTL_SECONDS,
  });
  return {
    ...action,
    params: {
      ...action.params,
      ConditionExpression: 'attribute_not_exists(PK) OR expires_at <= :now',
      ExpressionAttributeValues: { ':now': now },
    },
    onConditionFailed: { tag: IDEMPOTENCY_RACE, withItem: true },
  };
}
