import { matchesFilter } from '../../local/lambda/event-filter';
import { matchPath } from '../../shared/platform/http/paths';

describe('matchPath', () => {
  it('extracts decoded path parameters', () => {
    expect(matchPath('/segments/{segment_id}', '/segments/abc')).toEqual({ segment_id: 'abc' });
    expect(matchPath('/contacts/{id}', '/contacts/a%40b.com')).toEqual({ id: 'a@b.com' });
    expect(matchPath('/segments', '/segments/')).toEqual({});
  });

  it('does not match other shapes', () => {
    expect(matchPath('/segments/{segment_id}', '/segments')).toBeUndefined();
    expect(matchPath('/segments/{segment_id}', '/segments/a/b')).toBeUndefined();
    expect(matchPath('/segments', '/segmentsx')).toBeUndefined();
  });
});

describe('matchesFilter (Lambda event filtering)', () => {
  const insertEvent = { eventName: 'INSERT', dynamodb: { NewImage: { type: { S: 'event' } } } };
  const pattern = { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['event'] } } } };

  it('keeps records whose values are listed', () => {
    expect(matchesFilter(insertEvent, pattern)).toBe(true);
  });

  it('drops records with other values or missing fields', () => {
    expect(matchesFilter({ ...insertEvent, eventName: 'MODIFY' }, pattern)).toBe(false);
    expect(matchesFilter({ eventName: 'INSERT', dynamodb: { NewImage: { type: { S: 'segment' } } } }, pattern)).toBe(
      false,
    );
    expect(matchesFilter({ eventName: 'REMOVE', dynamodb: {} }, pattern)).toBe(false);
  });

  it('supports exists', () => {
    expect(matchesFilter({ a: 1 }, { a: [{ exists: true }] })).toBe(true);
    expect(matchesFilter({}, { a: [{ exists: true }] })).toBe(false);
    expect(matchesFilter({}, { a: [{ exists: false }] })).toBe(true);
  });

  it('takes the rest of the path, slashes included, for a greedy last segment (`{proxy+}`)', () => {
    expect(matchPath('/dashboard/{proxy+}', '/dashboard/emails/abc')).toEqual({ proxy: 'emails/abc' });
    expect(matchPath('/dashboard/{proxy+}', '/dashboard/assets/app-X.js')).toEqual({ proxy: 'assets/app-X.js' });
    expect(matchPath('/dashboard/{proxy+}', '/dashboard/')).toBeUndefined();
    expect(matchPath('/dashboard', '/dashboard/')).toEqual({});
  });
});
