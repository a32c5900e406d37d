/**
 * What a run's steps read (shared/automations/rules.ts): fields of the event and the contact,
 * `{var}` values resolved, and ConditionRules with every operator; and a run's id, which is the
 * same for the same automation and event (so a redelivered event starts no second run).
 */
import { fieldValue, resolveVars, ruleHolds, type RuleContext } from '../../shared/automations/rules';
import { runIdFor } from '../../shared/automations/runs';
import { newId, UUID_PATTERN } from '../../shared/platform/ids';

const context: RuleContext = {
  event: { plan: 'pro', seats: '7', signed_up: '2026-11-01T00:00:00Z', tags: [] },
  contact: {
    id: 'c1',
    email: 'ada@example.com',
    first_name: 'Ada',
    last_name: null,
    unsubscribed: false,
    properties: { company: 'Analytical' },
  },
};
const rule = (field: string, operator: string, value?: unknown) => ({ type: 'rule', field, operator, value });

describe('fields', () => {
  it('read the event payload, the contact and its properties; anything else is undefined', () => {
    expect(fieldValue('event.plan', context)).toBe('pro');
    expect(fieldValue('contact.first_name', context)).toBe('Ada');
    expect(fieldValue('contact.company', context)).toBe('Analytical');
    expect(fieldValue('contact.nope', context)).toBeUndefined();
    expect(fieldValue('event.toString', context)).toBeUndefined(); // own keys only
    expect(fieldValue('contact.first_name', { event: {} })).toBeUndefined();
  });

  it('resolve {var} values at any depth, leaving the rest', () => {
    expect(
      resolveVars(
        { a: { var: 'event.plan' }, b: [{ var: 'contact.email' }, 'x'], c: 3, d: { var: 'event.none' } },
        context,
      ),
    ).toEqual({ a: 'pro', b: ['ada@example.com', 'x'], c: 3, d: undefined });
  });
});

describe('conditions', () => {
  it.each([
    [rule('event.plan', 'eq', 'pro'), true],
    [rule('event.plan', 'neq', 'pro'), false],
    [rule('event.none', 'eq', null), true],
    [rule('event.seats', 'gte', 7), true],
    [rule('event.seats', 'gt', 7), false],
    [rule('event.signed_up', 'lt', Date.parse('2026-12-01T00:00:00Z')), true],
    [rule('event.plan', 'lt', 3), false],
    [rule('contact.email', 'ends_with', '@example.com'), true],
    [rule('contact.email', 'starts_with', 'bob'), false],
    [rule('contact.company', 'contains', 'lytic'), true],
    [rule('contact.last_name', 'exists'), false],
    [rule('event.tags', 'is_empty'), true],
    [rule('event.missing', 'is_empty'), true],
    [{ type: 'and', rules: [rule('event.plan', 'eq', 'pro'), rule('event.seats', 'lt', 5)] }, false],
    [{ type: 'or', rules: [rule('event.plan', 'eq', 'free'), rule('event.seats', 'gte', 5)] }, true],
  ])('%j holds: %s', (condition, holds) => {
    expect(ruleHolds(condition, context)).toBe(holds);
  });
});

describe('run ids', () => {
  it('are UUIDv7s with the event time, the same for the same automation and event, different otherwise', () => {
    const eventId = newId();
    const a = runIdFor('automation-a', eventId);
    expect(a).toMatch(UUID_PATTERN);
    expect(a[14]).toBe('7');
    expect(a.slice(0, 13)).toBe(eventId.slice(0, 13));
    expect(runIdFor('automation-a', eventId)).toBe(a);
    expect(runIdFor('automation-b', eventId)).not.toBe(a);
    expect(runIdFor('automation-a', newId())).not.toBe(a);
  });
});
