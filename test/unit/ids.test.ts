import { newId, nowIso, UUID_PATTERN } from '../../shared/platform/ids';

describe('newId (UUIDv7)', () => {
  it('is a version 7, variant 1 UUID', () => {
    const id = newId();
    expect(id).toMatch(UUID_PATTERN);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
  });

  it('sorts in creation order, also within one millisecond', () => {
    const ids = Array.from({ length: 5000 }, () => newId());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('carries its creation time in the first 48 bits', () => {
    const at = Date.now() + 10_000_000; // later than any id minted so far in this process (a fixed date stops being later)
    const id = newId(at);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('formats timestamps as ISO 8601 UTC with milliseconds', () => {
    expect(nowIso()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
