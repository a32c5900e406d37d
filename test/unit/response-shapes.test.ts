import { responseShapeProblem } from '../support/response-shapes';

const segment = {
  object: 'segment',
  id: '0194f0c8-7a2b-7cde-8f00-000000000001',
  name: 'VIP',
  created_at: '2026-11-23T08:01:02.345Z',
};

describe('the check of answers against the published response schemas', () => {
  it('accepts an answer that fits its route and status', () => {
    expect(responseShapeProblem('GET', `/segments/${segment.id}`, 200, segment, 'application/json')).toBeUndefined();
  });

  it('names a field the schema does not have, and a field the answer lacks', () => {
    expect(
      responseShapeProblem('GET', `/segments/${segment.id}`, 200, { ...segment, size: 3 }, 'application/json'),
    ).toMatch(/does not name body\.size/);
    const { name: _name, ...nameless } = segment;
    expect(responseShapeProblem('GET', `/segments/${segment.id}`, 200, nameless, 'application/json')).toMatch(
      /at body\.name/,
    );
  });

  it('names a status the operation does not document', () => {
    expect(responseShapeProblem('GET', '/segments', 418, {}, 'application/json')).toMatch(
      /listSegments.*418|418.*listSegments/,
    );
  });
});
