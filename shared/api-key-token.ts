/**
 * The API key token format and its hash: pure functions, no database, so the local runtime's
 * settings and the CLI can check a key without loading a DynamoDB client.
 * Format: `es_live_` or `es_test_` + 32 random base62 characters. Only the SHA-256 is stored.
 */
import { createHash, randomInt } from 'node:crypto';

export const API_KEY_PATTERN = /^es_(live|test)_[0-9A-Za-z]{32}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export type KeyMode = 'live' | 'test';

export function generateToken(mode: KeyMode): string {
  let random = '';
  for (let i = 0; i < 32; i++) random += BASE62[randomInt(62)]; // randomInt is uniform: no modulo bias
  return `es_${mode}_${random}`;
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
