/**
 * A custom event's payload against its schema (shared/automations/custom-events.ts `checkPayload`):
 * declared values are coerced to their types where nothing is lost and refused otherwise, every
 * refusal named; null is no value; undeclared keys pass; no schema takes any payload; 16 KB at most.
 */
import { checkPayload } from '../../shared/automations/custom-events';
import { ApiError, type ErrorDetail } from '../../shared/platform/errors';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const { statusCode, errors } = error as ApiError;
    return { statusCode, paths: (errors as ErrorDetail[]).map((e) => `${e.code} ${e.path}`) };
  }
  throw new Error('not refused');
};

describe('checkPayload', () => {
  const schema = { n: 'number', b: 'boolean', d: 'date', s: 'string' } as const;

  it('coerces what loses nothing', () => {
    expect(checkPayload(schema, { n: '-4.25', b: 'false', d: '2026-12-01T10:00:00+10:00', s: 12 })).toEqual({
      n: -4.25,
      b: false,
      d: '2026-12-01T00:00:00.000Z',
      s: '12',
    });
    expect(checkPayload(schema, { n: 3, b: true, d: 0, s: false })).toEqual({
      n: 3,
      b: true,
      d: '1970-01-01T00:00:00.000Z',
      s: 'false',
    });
  });

  it('lets null, missing and undeclared keys pass as they are', () => {
    expect(checkPayload(schema, { n: null, other: { nested: [1] } })).toEqual({ n: null, other: { nested: [1] } });
    expect(checkPayload(null, { anything: ['goes'] })).toEqual({ anything: ['goes'] });
  });

  it('refuses, naming each key, what its type cannot hold', () => {
    expect(refusal(() => checkPayload(schema, { n: '', b: 1, d: 'next tuesday', s: { a: 1 } }))).toEqual({
      statusCode: 422,
      paths: [
        'invalid_payload_value payload.n',
        'invalid_payload_value payload.b',
        'invalid_payload_value payload.d',
        'invalid_payload_value payload.s',
      ],
    });
    expect(refusal(() => checkPayload(schema, { n: 'Infinity' })).paths).toEqual(['invalid_payload_value payload.n']);
    expect(refusal(() => checkPayload(schema, { d: '2026-13-45' })).paths).toEqual(['invalid_payload_value payload.d']);
  });

  it('takes at most 16 KB of JSON', () => {
    expect(checkPayload(null, { big: 'x'.repeat(16 * 1024 - 20) })).toBeDefined();
    expect(refusal(() => checkPayload(null, { big: 'x'.repeat(16 * 1024) }))).toEqual({
      statusCode: 413,
      paths: ['payload_too_large payload'],
    });
  });
});
