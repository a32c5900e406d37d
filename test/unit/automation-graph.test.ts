/**
 * The automation graph's rules that need no table (shared/automations/graph.ts): a sound graph has
 * no problems; conditions nest at most 5 levels and hold at most 50 rules; operators take values of
 * their kind; durations are above 0 and at most 30 days. (Each graph rule through the API:
 * test/api/automations.test.ts.)
 */
import { durationProblem, graphProblems, ruleProblems } from '../../shared/automations/graph';
import type { AutomationStep } from '../../shared/automations/model';

const rule = (value: unknown = 'x', operator = 'eq') => ({ type: 'rule', field: 'event.x', operator, value });
const nest = (levels: number): unknown => (levels === 1 ? rule() : { type: 'and', rules: [nest(levels - 1)] });

describe('graphProblems', () => {
  it('finds none in a sound graph with branches that meet again', () => {
    const steps = [
      { key: 'start', type: 'trigger', config: { event_name: 'a' } },
      { key: 'check', type: 'condition', config: rule() },
      { key: 'yes', type: 'delay', config: { duration: '1 hour' } },
      { key: 'no', type: 'delay', config: { duration: '2 hours' } },
      { key: 'end', type: 'contact_delete', config: {} },
    ] as AutomationStep[];
    const connections = [
      { from: 'start', to: 'check' },
      { from: 'check', to: 'yes', type: 'condition_met' as const },
      { from: 'check', to: 'no', type: 'condition_not_met' as const },
      { from: 'yes', to: 'end' },
      { from: 'no', to: 'end' },
    ];
    expect(graphProblems(steps, connections)).toEqual([]);
  });

  it('refuses a second connection of one type from a step', () => {
    const steps = [
      { key: 'start', type: 'trigger', config: { event_name: 'a' } },
      { key: 'one', type: 'contact_delete', config: {} },
      { key: 'two', type: 'contact_delete', config: {} },
    ] as AutomationStep[];
    expect(
      graphProblems(steps, [
        { from: 'start', to: 'one' },
        { from: 'start', to: 'two' },
      ]),
    ).toEqual([expect.objectContaining({ path: 'connections.1', message: 'start already has a default connection' })]);
  });
});

describe('ruleProblems', () => {
  it('takes 5 levels, not 6', () => {
    expect(ruleProblems(nest(5), 'c')).toEqual([]);
    expect(ruleProblems(nest(6), 'c')).toEqual([
      expect.objectContaining({
        path: 'c.rules.0.rules.0.rules.0.rules.0',
        message: 'conditions nest at most 5 levels',
      }),
    ]);
  });

  it('takes 50 rules, not 51', () => {
    expect(ruleProblems({ type: 'or', rules: Array.from({ length: 49 }, () => rule()) }, 'c')).toEqual([]);
    expect(ruleProblems({ type: 'or', rules: Array.from({ length: 50 }, () => rule()) }, 'c')).toEqual([
      expect.objectContaining({ path: 'c.rules.49', message: 'a condition has at most 50 rules' }),
    ]);
  });

  it.each([
    [rule(null, 'eq'), []],
    [rule(3, 'gt'), []],
    [rule('3', 'gt'), ['c.value']],
    [rule('ab', 'starts_with'), []],
    [rule(1, 'contains'), ['c.value']],
    [{ type: 'rule', field: 'contact.plan', operator: 'exists' }, []],
    [rule('x', 'exists'), ['c.value']],
    [{ type: 'rule', field: 'plan', operator: 'eq', value: 1 }, ['c.field']],
    [{ type: 'and', rules: [] }, ['c.rules']],
    [{ type: 'not', rules: [rule()] }, ['c.type']],
    [{ ...rule(), extra: 1 }, ['c.extra']],
  ])('%j: problems at %j', (input, paths) => {
    expect(ruleProblems(input, 'c').map((p) => p.path)).toEqual(paths);
  });
});

describe('durationProblem', () => {
  it.each([
    ['30 days', undefined],
    ['1 minute', undefined],
    ['0 seconds', 'must be longer than 0'],
    ['30 days 1 second', 'must be at most 30 days'],
    ['whenever', expect.stringContaining('must be a duration')],
  ])('%s', (phrase, problem) => {
    expect(durationProblem(phrase)).toEqual(problem);
  });
});
