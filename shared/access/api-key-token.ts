/**
 * The API key token format and its hash: pure functions, no database, so the local runtime's
 * settings and the CLI can check a key without loading a DynamoDB client.
 * Format: `es_live_` or `es_test_` + 32 random base62 characters. Only the SHA-256 is stored.
 */
import { createHash, randomInt } from 'node:crypto';

export const API_KEY_PATTERN = /^es_(live|test)_[0-9A-Za-z]{32}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export type KeyMode = 'live' | 'test';

/** `length` random base62 characters (also the random part of OAuth client ids, codes and tokens). */
export function randomBase62(length: number): string {
  let random = '';
  for (let i = 0; i < length; i++) random += BASE62[randomInt(62)]; // randomInt is uniform: no modulo bias
  return random;
}

export const generateToken = (mode: KeyMode): string => `es_${mode}_${randomBase62(32)}`;

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
