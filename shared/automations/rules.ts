/**
 * What a run's steps read: `{var: "event.x"}` / `{var: "contact.y"}` values and ConditionRules
 * (a condition step, a wait's `filter_rule`), over the run's context.
 *
 * - `event.<key>`: a value of the event's payload: the last event the run received (its trigger's,
 *   or after a `wait_for_event` the one that came), and in a wait's `filter_rule` the event
 *   arriving (a system event's payload: shared/automations/events-forward.ts).
 * - `contact.<field>`: `email`, `first_name`, `last_name`, `unsubscribed`, `id`, or else the
 *   contact's property of that key; as the contact is when the step runs.
 * - A field that is absent reads as undefined: `exists` is false and `is_empty` true for it, every
 *   other operator false (`neq` true). Text operators compare case-sensitively; order operators
 *   take numbers (a numeric string counts as its number; a date as its epoch milliseconds).
 *
 * The shapes were checked when the automation was saved (./graph.ts `ruleProblems`). Pure: no I/O.
 */

export interface RunContact {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: boolean;
  properties: Record<string, unknown>;
}

export interface RuleContext {
  event: Record<string, unknown>;
  contact?: RunContact;
}

const CONTACT_FIELDS = ['id', 'email', 'first_name', 'last_name', 'unsubscribed'] as const;

/** The value a field (`event.x`, `contact.y`) names in the context, or undefined. */
export function fieldValue(field: string, context: RuleContext): unknown {
  const dot = field.indexOf('.');
  const scope = field.slice(0, dot);
  const name = field.slice(dot + 1);
  if (scope === 'event') return Object.hasOwn(context.event, name) ? context.event[name] : undefined;
  if (scope !== 'contact' || !context.contact) return undefined;
  if ((CONTACT_FIELDS as readonly string[]).includes(name)) return context.contact[name as keyof RunContact];
  return Object.hasOwn(context.contact.properties, name) ? context.contact.properties[name] : undefined;
}

/** Whether a field reads as a `{var}` reference: `{var: "event.x"}`. */
export const isVarRef = (value: unknown): value is { var: string } =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value).length === 1 &&
  typeof (value as { var?: unknown }).var === 'string';

/** `value` with every `{var}` in it (at the top, or in an object or a list) replaced by what it names. */
export function resolveVars(value: unknown, context: RuleContext): unknown {
  if (isVarRef(value)) return fieldValue(value.var, context);
  if (Array.isArray(value)) return value.map((v) => resolveVars(v, context));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveVars(v, context)]));
  return value;
}

const asNumber = (value: unknown): number | undefined => {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    if (Number.isFinite(n)) return n;
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return ms;
  }
  return undefined;
};

const isEmpty = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  value === '' ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === 'object' && value !== null && Object.keys(value).length === 0);

/** Whether a ConditionRule holds in the context. */
export function ruleHolds(rule: unknown, context: RuleContext): boolean {
  const r = rule as { type: string; rules?: unknown[]; field?: string; operator?: string; value?: unknown };
  if (r.type === 'and') return (r.rules ?? []).every((child) => ruleHolds(child, context));
  if (r.type === 'or') return (r.rules ?? []).some((child) => ruleHolds(child, context));
  const actual = fieldValue(r.field ?? '', context);
  const expected = r.value;
  switch (r.operator) {
    case 'eq':
      return actual === expected || (expected === null && actual === undefined);
    case 'neq':
      return !(actual === expected || (expected === null && actual === undefined));
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const a = asNumber(actual);
      const b = expected as number;
      if (a === undefined) return false;
      return r.operator === 'gt' ? a > b : r.operator === 'gte' ? a >= b : r.operator === 'lt' ? a < b : a <= b;
    }
    case 'contains':
      return typeof actual === 'string' && actual.includes(expected as string);
    case 'starts_with':
      return typeof actual === 'string' && actual.startsWith(expected as string);
    case 'ends_with':
      return typeof actual === 'string' && actual.endsWith(expected as string);
    case 'exists':
      return actual !== undefined && actual !== null;
    case 'is_empty':
      return isEmpty(actual);
    default:
      return false;
  }
}

/** The fields a rule reads, so a caller knows whether it needs the contact. */
export function ruleReadsContact(rule: unknown): boolean {
  const r = rule as { type: string; rules?: unknown[]; field?: string };
  if (r.type === 'and' || r.type === 'or') return (r.rules ?? []).some(ruleReadsContact);
  return typeof r.field === 'string' && r.field.startsWith('contact.');
}
