import { randomBytes } from 'node:crypto';
import { now as clockNow } from './clock';

/**
 * UUIDv7 (RFC 9562): 48-bit millisecond timestamp, then random bits. Ids sort by creation time,
 * which is what lets lists page by id and events come back newest first from a key Query.
 * A counter in the random part keeps ids minted in the same millisecond in order.
 */
let lastMs = 0;
let sequence = 0;

export function newId(now: number = clockNow()): string {
  const bytes = randomBytes(16);
  if (now <= lastMs) {
    now = lastMs;
    sequence = (sequence + 1) & 0xfff;
    if (sequence === 0) now = ++lastMs; // 4,096 ids in one ms: borrow the next ms
  } else {
    sequence = bytes.readUInt16BE(6) & 0x7ff; // random start, headroom to count up
  }
  lastMs = now;
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export { nowIso } from './clock';
