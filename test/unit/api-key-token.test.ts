import { createHash } from 'node:crypto';
import { API_KEY_PATTERN, generateToken, hashToken } from '../../shared/access/api-key-token';

describe('API key tokens', () => {
  it('are es_live_/es_test_ + 32 base62 characters', () => {
    expect(generateToken('live')).toMatch(/^es_live_[0-9A-Za-z]{32}$/);
    expect(generateToken('test')).toMatch(/^es_test_[0-9A-Za-z]{32}$/);
    expect(API_KEY_PATTERN.test(`es_live_${'a'.repeat(31)}`)).toBe(false);
    expect(API_KEY_PATTERN.test(`re_live_${'a'.repeat(32)}`)).toBe(false);
    expect(API_KEY_PATTERN.test(`es_live_${'a'.repeat(31)}-`)).toBe(false);
  });

  it('are random: no two alike in a thousand', () => {
    expect(new Set(Array.from({ length: 1000 }, () => generateToken('live'))).size).toBe(1000);
  });

  it('are stored as their SHA-256 hex digest', () => {
    const token = generateToken('test');
    expect(hashToken(token)).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hashToken(token)).not.toContain(token.slice(8));
  });
});
