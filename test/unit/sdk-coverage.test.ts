/**
 * The whole official SDK against the route table: every method of `new Resend(...)` (found by walking
 * the instance, so a method a new SDK version adds is swept too) is called with ids and a payload
 * that names every id it may take, with `fetch` answering in place of the API, and the request it
 * makes must be a route of functions/routes.ts, method and path: no SDK method lands on the
 * fallback's 404 or 405. What a method does with the answer is the API suites' part (the SDK
 * tables in docs/api.md name them); here it is only whether the service has the route.
 */
import { Resend } from 'resend';
import { routes } from '../../functions/routes';
import { matchPath } from '../../shared/platform/http/paths';

const ID = '01900000-0000-7000-8000-000000000001';
/** Every id an SDK method's options may name, and enough of a body for the SDK to send it. */
const options = {
  id: ID,
  ...Object.fromEntries(
    [
      'inboxId',
      'threadId',
      'emailId',
      'domainId',
      'contactId',
      'segmentId',
      'topicId',
      'broadcastId',
      'automationId',
      'runId',
      'labelId',
      'draftId',
      'webhookId',
      'eventId',
      'attachmentId',
      'propertyId',
    ].map((name) => [name, ID]),
  ),
  email: 'reader@example.com',
  name: 'name',
  key: 'name',
  type: 'string',
  from: 'sender@example.com',
  to: 'reader@example.com',
  subject: 'subject',
  text: 'text',
  events: ['email.sent'],
  endpoint: 'https://example.com/hook',
  query: 'word',
  labels: [ID],
  topics: [{ id: ID, subscription: 'opt_in' }],
  steps: [],
  connections: [],
};

/**
 * Methods that call no route by design: they build a request body or verify a signature locally, or fetch the URL
 * they are given (`downloadRaw`: a received email's `raw.download_url`, served by the bucket).
 */
const LOCAL_ONLY = new Set([
  'emails.receiving.downloadRaw',
  'contacts.imports.buildCreateFormData',
  'contacts.imports.buildColumnMap',
  'contacts.imports.appendField',
  'emails.receiving.forwardPassthrough',
  'emails.receiving.forwardWrapped',
  'webhooks.verify',
]);

function sdkMethods(sdk: Record<string, unknown>): { name: string; call: (...args: unknown[]) => unknown }[] {
  const found: { name: string; call: (...args: unknown[]) => unknown }[] = [];
  const walk = (target: Record<string, unknown>, path: string, depth: number) => {
    const names = new Set<string>();
    for (
      let proto = Object.getPrototypeOf(target);
      proto && proto !== Object.prototype;
      proto = Object.getPrototypeOf(proto)
    )
      for (const name of Object.getOwnPropertyNames(proto)) names.add(name);
    for (const name of names)
      if (name !== 'constructor' && typeof target[name] === 'function')
        found.push({
          name: `${path}.${name}`,
          call: (...args) => (target[name] as (...a: unknown[]) => unknown).apply(target, args),
        });
    if (depth < 4)
      for (const [key, value] of Object.entries(target))
        if (key !== 'resend' && value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Map))
          walk(value as Record<string, unknown>, `${path}.${key}`, depth + 1);
  };
  for (const [key, value] of Object.entries(sdk))
    if (value && typeof value === 'object' && !(value instanceof Map) && key !== 'headers')
      walk(value as Record<string, unknown>, key, 0);
  return found;
}

describe('the official SDK against the route table', () => {
  const original = global.fetch;
  afterAll(() => {
    global.fetch = original;
  });

  it('sends every method that calls the API to a route the service has (method and path)', async () => {
    // what the last call sent (a holder: the fake fetch sets it, out of the compiler's sight)
    const last: { sent?: { method: string; path: string } } = {};
    const sentBy = () => last.sent;
    global.fetch = (async (url: string | URL, init: RequestInit) => {
      last.sent = { method: String(init.method), path: new URL(url).pathname };
      return new Response(JSON.stringify({ object: 'list', id: ID, data: [], has_more: false }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof fetch;
    const sdk = new Resend('re_sweep', { baseUrl: 'http://sdk.invalid' }) as unknown as Record<string, unknown>;
    const methods = sdkMethods(sdk);
    expect(methods.length).toBeGreaterThan(140); // the SDK's 6.38 surface: a walk that found less missed some
    const requests = new Map<string, { method: string; path: string }>();
    for (const { name, call } of methods) {
      // the shapes SDK methods take: (options), (id, options), (id, id, options); the first that makes a whole request
      for (const args of [[options], [ID, options], [ID, ID, options]]) {
        last.sent = undefined;
        try {
          await call(...args);
        } catch {
          // a shape the method refuses before sending
        }
        const request = sentBy();
        if (request && !request.path.includes('undefined')) break;
      }
      const request = sentBy();
      if (request && !request.path.includes('undefined')) requests.set(name, request);
    }
    const silent = methods.map((m) => m.name).filter((name) => !requests.has(name));
    expect(silent).toEqual(expect.arrayContaining([...LOCAL_ONLY]));
    expect(silent.filter((name) => !LOCAL_ONLY.has(name))).toEqual([]);
    const missing = [...requests].filter(
      ([, r]) => !routes.some((route) => route.method === r.method && matchPath(route.path, r.path)),
    );
    expect(missing.map(([name, r]) => `${name}: ${r.method} ${r.path}`)).toEqual([]);
  });
});
