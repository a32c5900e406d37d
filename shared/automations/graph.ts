/**
 * What an automation's graph must be, checked at create and update (422, each problem named by
 * its place: `steps.<i>...` or `connections.<i>...`, the message naming the step's key):
 *
 * - Step keys are unique, and exactly one step is the `trigger`; nothing connects into it.
 * - A connection joins two steps of the graph, with a type its `from` step gives: `condition_met`
 *   and `condition_not_met` from a condition, `event_received` and `timeout` from a wait (`timeout`
 *   only when the wait has one), `default` (the type when none is given) from every other step. A
 *   step has at most one connection of each type.
 * - A condition has both of its connections, a wait its `event_received` (and its `timeout` when it
 *   has one); every step is reachable from the trigger, and no path comes back to a step (no cycle).
 * - Durations (`delay.duration`, `wait_for_event.timeout`) are phrases such as "3 days" or
 *   "1 hour 30 minutes", above 0 and at most 30 days.
 * - Event names (the trigger's, a wait's) are custom names (as POST /events takes them) or one of
 *   the system events (SYSTEM_EVENTS).
 * - Conditions (a condition step's config, a wait's `filter_rule`) are ConditionRules: a `rule` on
 *   a field `event.<key>` or `contact.<field>` with one of the SDK's operators and a value of the
 *   operator's kind, or `and`/`or` over 1 or more rules, at most 5 levels and 50 rules.
 *
 * What needs the table (templates published, segments and topics that exist) is checked in
 * ./automations.ts. Pure: no I/O.
 */
import { parseDuration } from '../platform/duration';
import type { ErrorDetail } from '../platform/errors';
import {
  type AutomationConnection,
  type AutomationConnectionInput,
  type AutomationStep,
  type ConnectionType,
  eventNameProblem,
  MAX_WAIT_MS,
  SYSTEM_EVENT_PREFIX,
  SYSTEM_EVENTS,
  VAR_REFERENCE,
} from './model';

const MAX_RULE_DEPTH = 5;
const MAX_RULES = 50;
const EQUALITY = ['eq', 'neq'];
const ORDER = ['gt', 'gte', 'lt', 'lte'];
const TEXT = ['contains', 'starts_with', 'ends_with'];
const PRESENCE = ['exists', 'is_empty'];

/** The connections with their types filled in (`default` when none was given). */
export const withTypes = (connections: AutomationConnectionInput[]): AutomationConnection[] =>
  connections.map((c) => ({ from: c.from, to: c.to, type: c.type ?? 'default' }));

/** The connection types a step of this kind gives. */
function typesFrom(step: AutomationStep): ConnectionType[] {
  if (step.type === 'condition') return ['condition_met', 'condition_not_met'];
  if (step.type === 'wait_for_event') return step.config.timeout ? ['event_received', 'timeout'] : ['event_received'];
  return ['default'];
}

/** A phrase's milliseconds when it is a duration above 0 and at most 30 days, else the problem. */
export function durationProblem(phrase: string): string | undefined {
  const ms = parseDuration(phrase);
  if (ms === undefined) return 'must be a duration such as "30 minutes", "3 days" or "1 hour 30 minutes"';
  if (ms <= 0) return 'must be longer than 0';
  if (ms > MAX_WAIT_MS) return 'must be at most 30 days';
  return undefined;
}

function eventProblem(name: string): string | undefined {
  if (name.startsWith(SYSTEM_EVENT_PREFIX))
    return (SYSTEM_EVENTS as readonly string[]).includes(name)
      ? undefined
      : `is not a system event (there are: ${SYSTEM_EVENTS.join(', ')})`;
  return eventNameProblem(name);
}

/** The problems of a ConditionRule at `path`. */
export function ruleProblems(rule: unknown, path: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  let count = 0;
  // `return problem(...)` ends a visit with the problem noted
  const problem = (at: string, message: string): undefined => {
    problems.push({ code: 'invalid_condition', message, path: at });
    return undefined;
  };
  const visit = (node: unknown, at: string, depth: number): undefined => {
    count++;
    if (count > MAX_RULES) {
      if (count === MAX_RULES + 1) problem(at, `a condition has at most ${MAX_RULES} rules`);
      return;
    }
    if (!node || typeof node !== 'object' || Array.isArray(node)) return problem(at, 'must be a rule object');
    const r = node as Record<string, unknown>;
    if (r.type === 'and' || r.type === 'or') {
      const extra = Object.keys(r).filter((k) => k !== 'type' && k !== 'rules');
      if (extra.length) problem(`${at}.${extra[0]}`, `"${r.type}" takes only rules`);
      if (depth >= MAX_RULE_DEPTH) return problem(at, `conditions nest at most ${MAX_RULE_DEPTH} levels`);
      if (!Array.isArray(r.rules) || r.rules.length === 0)
        return problem(`${at}.rules`, 'must be a list of 1 or more rules');
      for (const [i, child] of r.rules.entries()) visit(child, `${at}.rules.${i}`, depth + 1);
      return;
    }
    if (r.type !== 'rule') return problem(`${at}.type`, 'must be "rule", "and" or "or"');
    const extra = Object.keys(r).filter((k) => !['type', 'field', 'operator', 'value'].includes(k));
    if (extra.length) problem(`${at}.${extra[0]}`, 'a rule takes type, field, operator and value');
    if (typeof r.field !== 'string' || !VAR_REFERENCE.test(r.field))
      problem(`${at}.field`, 'must be event.<key> or contact.<field>');
    const op = r.operator;
    if (typeof op !== 'string' || ![...EQUALITY, ...ORDER, ...TEXT, ...PRESENCE].includes(op))
      return problem(`${at}.operator`, `must be one of ${[...EQUALITY, ...ORDER, ...TEXT, ...PRESENCE].join(', ')}`);
    const value = r.value;
    if (EQUALITY.includes(op) && !(value === null || ['string', 'number', 'boolean'].includes(typeof value)))
      problem(`${at}.value`, `${op} takes a string, number, boolean or null`);
    if (ORDER.includes(op) && !(typeof value === 'number' && Number.isFinite(value)))
      problem(`${at}.value`, `${op} takes a number`);
    if (TEXT.includes(op) && typeof value !== 'string') problem(`${at}.value`, `${op} takes a string`);
    if (PRESENCE.includes(op) && value !== undefined) problem(`${at}.value`, `${op} takes no value`);
  };
  visit(rule, path, 1);
  return problems;
}

/** Every problem of the graph (empty: it is sound). */
export function graphProblems(steps: AutomationStep[], connectionInputs: AutomationConnectionInput[]): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const invalid = (path: string, message: string, code = 'invalid_automation'): void => {
    problems.push({ code, message, path });
  };
  const connections = withTypes(connectionInputs);

  const index = new Map<string, number>();
  steps.forEach((step, i) => {
    if (index.has(step.key)) invalid(`steps.${i}.key`, `step key ${step.key} is used twice`);
    else index.set(step.key, i);
  });
  const triggers = steps.map((s, i) => [s, i] as const).filter(([s]) => s.type === 'trigger');
  if (triggers.length === 0) invalid('steps', 'an automation has exactly one trigger step; it has none');
  for (const [step, i] of triggers.slice(1))
    invalid(`steps.${i}`, `an automation has exactly one trigger step; ${step.key} is a second`);

  // each step's own config
  steps.forEach((step, i) => {
    const at = `steps.${i}.config`;
    if (step.type === 'trigger' || step.type === 'wait_for_event') {
      const problem = eventProblem(step.config.event_name);
      if (problem) invalid(`${at}.event_name`, `${step.key}: event_name ${problem}`);
    }
    if (step.type === 'delay') {
      const problem = durationProblem(step.config.duration);
      if (problem) invalid(`${at}.duration`, `${step.key}: duration ${problem}`);
    }
    if (step.type === 'wait_for_event') {
      const problem = step.config.timeout ? durationProblem(step.config.timeout) : undefined;
      if (problem) invalid(`${at}.timeout`, `${step.key}: timeout ${problem}`);
      if (step.config.filter_rule) problems.push(...ruleProblems(step.config.filter_rule, `${at}.filter_rule`));
    }
    if (step.type === 'condition') problems.push(...ruleProblems(step.config, at));
  });

  // connections: known steps, a type the step gives, once per type, never into the trigger
  const outgoing = new Map<string, Map<ConnectionType, string>>();
  for (const [i, c] of connections.entries()) {
    const from = index.get(c.from);
    const to = index.get(c.to);
    if (from === undefined) invalid(`connections.${i}.from`, `no step has the key ${c.from}`);
    if (to === undefined) invalid(`connections.${i}.to`, `no step has the key ${c.to}`);
    if (from === undefined || to === undefined) continue;
    if (steps[to].type === 'trigger') {
      invalid(`connections.${i}.to`, `nothing connects into the trigger ${c.to}`);
      continue;
    }
    const allowed = typesFrom(steps[from]);
    if (!allowed.includes(c.type)) {
      invalid(`connections.${i}.type`, `${c.from} (${steps[from].type}) gives ${allowed.join(' or ')}, not ${c.type}`);
      continue;
    }
    const mine = outgoing.get(c.from) ?? new Map<ConnectionType, string>();
    if (mine.has(c.type)) {
      invalid(`connections.${i}`, `${c.from} already has a ${c.type} connection`);
      continue;
    }
    mine.set(c.type, c.to);
    outgoing.set(c.from, mine);
  }

  // the branches a condition or a wait must have
  steps.forEach((step, i) => {
    const mine = outgoing.get(step.key);
    const need: readonly ConnectionType[] =
      step.type === 'condition'
        ? (['condition_met', 'condition_not_met'] as const)
        : step.type === 'wait_for_event'
          ? typesFrom(step)
          : [];
    const lacking = need.filter((type) => !mine?.has(type));
    if (lacking.length)
      invalid(`steps.${i}`, `${step.key} (${step.type}) needs a ${lacking.join(' and a ')} connection`);
  });

  // reachable from the trigger, and no cycle (depth-first, colouring the steps on the current path)
  if (triggers.length === 1 && problems.length === 0) {
    const state = new Map<string, 'open' | 'done'>();
    let cycle: string | undefined;
    const walk = (key: string) => {
      state.set(key, 'open');
      for (const next of outgoing.get(key)?.values() ?? []) {
        if (state.get(next) === 'open') cycle ??= `${key} -> ${next}`;
        else if (!state.has(next)) walk(next);
      }
      state.set(key, 'done');
    };
    walk(triggers[0][0].key);
    if (cycle) {
      const [from, to] = cycle.split(' -> ');
      const i = connections.findIndex((c) => c.from === from && c.to === to);
      invalid(`connections.${i}`, `the connection ${cycle} makes a cycle`);
    }
    steps.forEach((step, i) => {
      if (!state.has(step.key)) invalid(`steps.${i}`, `${step.key} cannot be reached from the trigger`);
    });
  }
  return problems;
}
