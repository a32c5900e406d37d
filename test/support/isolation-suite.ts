/**
 * Tenant isolation over real HTTP (isolationSuite('project'): test/api/isolation.test.ts), and the
 * same between a project's live and test modes (isolationSuite('test-mode'):
 * test/api/isolation-test-mode.test.ts, where B is the test-mode sandbox of A's own project,
 * shared/project/test-mode.ts). Project-kind wording below; in test mode "project B" is A's test keys.
 *
 * Tenant isolation over real HTTP: project A (the default test key) owns one of every resource
 * the API has; project B (a project of its own, with its own live key) calls every keyed route
 * of functions/routes.ts that takes path parameters with A's ids in the path and a valid body,
 * and must get 404 `not_found` every time, with nothing of A changed afterwards. B's lists show
 * nothing of A; ids of A named in B's bodies and queries are treated like ids that do not exist;
 * B's webhook (subscribed to every event type) and B's event log never see anything A does,
 * while A's webhook receives A's events.
 *
 * The routes come from the route table itself: a route added later is driven too, and fails
 * this suite until it is given an A-owned id for each path parameter (`idsFor`) and, if it takes
 * a body, a sample body (`SAMPLE_BODIES`).
 *
 * Each suite runs on a local runtime of its own (./own-runtime.ts, with the shared runtime's
 * settings): A is its default project, and before the suite checks what reached B's webhook it
 * lets the pipeline settle (`drain`), which beside the shared runtime would wait for every other
 * suite too. Once it settled, what has not reached B never will.
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import { routes, type Route } from '../../functions/routes';
import { EVENT_TYPES } from '../../shared/events/model';
import { s256Challenge } from '../../shared/access/oauth-tokens';
import { requiredScope } from '../../shared/platform/http/operation';
import { TEST_API_KEY } from './constants';
import { api, baseUrl, request, type ApiResponse } from './http';
import { useOwnRuntime } from './own-runtime';
import { deliverMail } from './smtp';
import { createOtherProject, type RuntimeInfo, useRuntimeTable } from './table';
import { waitFor } from './wait';
import { WebhookReceiver } from './webhook-receiver';

export type IsolationKind = 'project' | 'test-mode';

export function isolationSuite(kind: IsolationKind): void {
  // the suite's own runtime, set as the shared one is (./global-setup.ts); the file's client and table talk to it
  const own = useOwnRuntime(
    {
      LOCAL_SCHEDULE_INTERVAL_SECONDS: '1',
      WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1',
      API_RATE_LIMIT_PER_SECOND: '100000',
      PROJECT_SETTINGS_CACHE_SECONDS: '1',
      REPUTATION_MIN_SENDS: '1000000000', // B sends to an address A suppressed: no pause for that
    },
    { forFile: true },
  );
  let runtime: RuntimeInfo;
  beforeAll(() => {
    runtime = useRuntimeTable();
  });
  /** test mode: B is A's own project's test-mode sandbox (a test key of A's project) */
  const testMode = kind === 'test-mode';

  /** Ids that exist nowhere: what B must not be able to tell A's ids apart from. */
  const MISSING = '01890a5d-ac96-774b-bcce-b302099a8057';
  const MISSING_CLIENT_ID = 'es_client_000000000000000000000000';
  const TAG = `iso${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  /** in B's names instead (B's lists must show nothing with TAG) */
  const B_NAME = `b${randomBytes(6).toString('hex')}`;
  const REDIRECT = 'https://app.example/callback';
  /** A's scheduled email is sent with it; B's request with the same key is B's own */
  const IDEMPOTENCY_KEY = `order-${randomBytes(6).toString('hex')}`;
  /** how long to wait for the pipelines (sender, webhooks, inbound) when the whole run shares the machine */
  const SLOW = 40_000;
  const inOneDay = () => new Date(Date.now() + 24 * 3600_000).toISOString();

  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const r = await new WebhookReceiver().start();
    receivers.push(r);
    return r;
  };

  /** Everything project A owns in this suite (ids, and the other names the paths accept). */
  interface OwnedByA {
    domain: { id: string; name: string };
    segment: string;
    topic: string;
    contact: { id: string; email: string };
    template: { id: string; alias: string };
    broadcast: string;
    suppression: { id: string; email: string };
    webhook: string;
    delivery: string;
    /** the delivered event's id: Resend's event log names deliveries by it */
    event: string;
    apiKey: { id: string; token: string };
    oauthClient: { id: string; client_id: string };
    grant: { id: string; accessToken: string };
    email: string;
    scheduledEmail: string;
    received: { id: string; attachment: string };
    /**
     * a contact property of A's, kept in a project of its own (`key`): a schema in the shared test
     * project would change how every other suite's contact writes are checked
     */
    contactProperty: { id: string; key: string };
    /** an entry of A's request log (GET /logs) */
    log: string;
    /** a contact import of A's, completed */
    contactImport: string;
    /** a custom event definition of A's (paths take its id or its name) */
    customEvent: { id: string; name: string };
    /** an automation of A's, enabled (its trigger entry is A's too), and a run of it (waiting in its delay) */
    automation: { id: string; run: string };
    /** the domain id a claim of A's promises (of a name another project holds, still pending) */
    claim: string;
    /** an inbox of A's (paths take its id or address) with a thread of one received message, a label and a reply draft */
    inbox: { id: string; address: string; thread: string; message: string; label: string; draft: string };
  }
  /** B's own resources: bodies of B's requests name them, and the mixed paths pair them with A's. */
  interface OwnedByB {
    projectId: string;
    key: string;
    /** a full_access OAuth access token of B: the other way a caller of B authenticates */
    oauthToken: string;
    domain: string;
    segment: string;
    topic: string;
    contact: string;
    broadcast: string;
    webhook: string;
    apiKey: string;
  }

  let a: OwnedByA;
  let b: OwnedByB;
  let rxA: WebhookReceiver;
  let rxB: WebhookReceiver;
  /** emails B sends in this suite (its events are B's own) */
  const sentByB: string[] = [];
  /** other resources B makes in this suite (in test mode, its domain of A's name) */
  const madeByB: string[] = [];
  let before: Record<string, unknown>;
  /** When A's resources were settled and read: no event about them may be created after this. */
  let snapshotAt: string;

  const asB = () => ({ key: b.key });
  const created = (res: ApiResponse, status = 201) => {
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
    return res.body;
  };

  async function verifiedDomain(name: string, body: Record<string, unknown>, key?: string) {
    const domain = created(await api.post('/domains', { name, ...body }, { key }));
    await waitFor(
      () => api.post(`/domains/${domain.id}/verify`, undefined, { key }),
      (r) => r.body.status === 'verified',
      SLOW,
    );
    return domain as { id: string; name: string };
  }

  /** Walks a list route's pages until `id` shows up (the default project may hold more than a page). */
  async function listed(path: string, id: string, key?: string): Promise<unknown> {
    let after: string | undefined;
    for (;;) {
      const res = await api.get(`${path}?limit=100${after ? `&after=${after}` : ''}`, { key });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
      const found = res.body.data.find((item: { id: string }) => item.id === id);
      if (found || !res.body.has_more) return found ?? null;
      after = res.body.data[res.body.data.length - 1].id;
    }
  }

  /** Authorizes the client with the key, exchanges the code: the grant and its access token. */
  async function oauthGrant(clientId: string, key?: string): Promise<{ id: string; accessToken: string }> {
    const verifier = randomBytes(48).toString('base64url');
    const params = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: s256Challenge(verifier),
      scope: 'full_access',
    });
    const { code } = created(await api.get(`/oauth/authorize?${params}`, { key }), 200);
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    const tokens = created(
      await request('POST', '/oauth/token', undefined, {
        key: null,
        raw: form.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      200,
    );
    const grants = (await api.get('/oauth/grants?limit=100', { key })).body.data as { id: string; client_id: string }[];
    return { id: grants.find((g) => g.client_id === clientId)!.id, accessToken: tokens.access_token as string };
  }

  /** B's key: another project's live key, or a test key of A's own project */
  async function keyOfB(): Promise<{ projectId: string; key: string }> {
    if (!testMode) return createOtherProject();
    const { createApiKey } = await import('../../shared/access/api-keys');
    const { token } = await createApiKey(
      { projectId: runtime.projectId, livemode: false, permission: 'full_access' },
      { name: `B test key ${B_NAME}`, mode: 'test' },
    );
    return { projectId: runtime.projectId, key: token }; // a test-mode event names its project (`livemode: false` tells the mode)
  }

  async function setUpB(): Promise<OwnedByB> {
    const other = await keyOfB();
    const key = { key: other.key };
    rxB = await receiver();
    // the webhook first: an event the fan-out handles before the webhook exists is not delivered to it, and
    // B's domain.created must be (the race lost once on a loaded CI run)
    const webhook = created(
      await api.post(
        '/webhooks',
        { endpoint: rxB.url, events: [...EVENT_TYPES], description: 'B hears everything' },
        key,
      ),
    );
    const [domain, segment, topic, oauthToken] = await Promise.all([
      verifiedDomain(`${B_NAME}.example.com`, { capabilities: { receiving: 'enabled' } }, other.key),
      api.post('/segments', { name: 'B segment' }, key).then((r) => created(r)),
      api.post('/topics', { name: 'B topic', default_subscription: 'opt_in' }, key).then((r) => created(r)),
      (async () => {
        const client = created(await api.post('/oauth/clients', { name: 'B client', redirect_uris: [REDIRECT] }, key));
        return (await oauthGrant(client.client_id, other.key)).accessToken;
      })(),
    ]);
    const [contact, broadcast] = await Promise.all([
      api
        .post('/contacts', { email: `b-contact@${B_NAME}.example.com`, segments: [segment.id] }, key)
        .then((r) => created(r)),
      api
        .post(
          '/broadcasts',
          { segment_id: segment.id, from: `b@${domain.name}`, subject: 'B news', html: '<p>B</p>' },
          key,
        )
        .then((r) => created(r)),
    ]);
    const [apiKey] = (await api.get('/api-keys', key)).body.data;
    return {
      ...other,
      oauthToken,
      domain: domain.id,
      segment: segment.id,
      topic: topic.id,
      contact: contact.id,
      broadcast: broadcast.id,
      webhook: webhook.id,
      apiKey: apiKey.id,
    };
  }

  async function setUpA(): Promise<OwnedByA> {
    rxA = await receiver();
    const webhook = created(
      await api.post('/webhooks', { endpoint: rxA.url, events: [...EVENT_TYPES], description: `A ${TAG}` }),
    );
    const [domain, segment, topic, apiKey, oauthClient, suppression] = await Promise.all([
      verifiedDomain(`a-${TAG}.example.com`, { capabilities: { receiving: 'enabled' } }),
      api.post('/segments', { name: `A segment ${TAG}` }).then((r) => created(r)),
      api.post('/topics', { name: `A topic ${TAG}`, default_subscription: 'opt_in' }).then((r) => created(r)),
      api.post('/api-keys', { name: `A key ${TAG}` }).then((r) => created(r)),
      api.post('/oauth/clients', { name: `A client ${TAG}`, redirect_uris: [REDIRECT] }).then((r) => created(r)),
      api
        .post('/suppressions', { email: `suppressed-${TAG}@example.com`, reason: 'isolation suite' })
        .then((r) => created(r)),
    ]);
    const from = `A <a@${domain.name}>`;
    // A's key used once now: its last_used_at is written before anything is compared (the next writes come an hour later)
    expect((await api.get('/segments?limit=1', { key: apiKey.token })).status).toBe(200);

    const [contact, template, broadcast, email, scheduledEmail, grant, received] = await Promise.all([
      api
        .post('/contacts', {
          email: `contact-${TAG}@example.com`,
          first_name: 'Ada',
          segments: [segment.id],
          topics: [{ id: topic.id, subscription: 'opt_out' }],
        })
        .then((r) => created(r)),
      (async () => {
        const t = created(
          await api.post('/templates', {
            name: `A template ${TAG}`,
            alias: `a-${TAG}`,
            from,
            subject: 'Hi {{NAME}}',
            html: '<p>{{NAME}}</p>',
            variables: [{ key: 'NAME', type: 'string', fallback_value: 'you' }],
          }),
        );
        created(await api.post(`/templates/${t.id}/publish`), 200);
        return t;
      })(),
      api
        .post('/broadcasts', {
          name: `A broadcast ${TAG}`,
          segment_id: segment.id,
          topic_id: topic.id,
          from,
          subject: 'A news',
          html: '<p>A</p>',
        })
        .then((r) => created(r)),
      (async () => {
        const { id } = created(
          await api.post('/emails', {
            from,
            to: 'success@simulator.amazonses.com',
            subject: `A email ${TAG}`,
            text: 'hello',
          }),
          200,
        );
        await waitFor(
          () => api.get(`/emails/${id}`),
          (r) => r.body.last_event === 'delivered',
          SLOW,
        );
        return id as string;
      })(),
      api
        .post(
          '/emails',
          { from, to: `later-${TAG}@example.com`, subject: `A later ${TAG}`, text: 'later', scheduled_at: inOneDay() },
          { headers: { 'idempotency-key': IDEMPOTENCY_KEY } },
        )
        .then((r) => created(r, 200).id as string),
      oauthGrant(oauthClient.client_id),
      (async () => {
        const to = `inbox@${domain.name}`;
        const subject = `A received ${TAG}`;
        await deliverMail(
          'sender@outside.example',
          [to],
          [
            'From: Outside <sender@outside.example>',
            `To: ${to}`,
            `Subject: ${subject}`,
            `Message-ID: <${TAG}@outside.example>`,
            'MIME-Version: 1.0',
            'Content-Type: multipart/mixed; boundary="b"',
            '',
            '--b',
            'Content-Type: text/plain; charset=utf-8',
            '',
            'Hello A',
            '--b',
            'Content-Type: text/plain; name="note.txt"',
            'Content-Disposition: attachment; filename="note.txt"',
            '',
            'for A only',
            '--b--',
          ],
        );
        const list = await waitFor(
          async () => (await api.get('/emails/receiving?limit=100')).body.data as any[],
          (l) => l.some((e) => e.subject === subject),
          SLOW,
        );
        const found = list.find((e) => e.subject === subject);
        await waitFor(
          async () => rxA.receipts,
          (rs) => rs.some((r) => r.json?.type === 'email.stored' && r.json.data.object.id === found.id),
          SLOW,
        );
        return { id: found.id as string, attachment: found.attachments[0].id as string };
      })(),
    ]);

    const delivery = await waitFor(
      async () => (await api.get(`/webhooks/${webhook.id}/deliveries`)).body.data as any[],
      (d) => d.some((x) => x.status === 'delivered'),
    );
    await waitFor(
      () => api.get(`/webhooks/${webhook.id}`),
      (r) => r.body.status === 'enabled',
    ); // the first success enables it
    return {
      domain,
      segment: segment.id,
      topic: topic.id,
      contact: { id: contact.id, email: contact.email },
      template: { id: template.id, alias: template.alias },
      broadcast: broadcast.id,
      suppression: { id: suppression.id, email: suppression.email },
      webhook: webhook.id,
      delivery: delivery.find((x) => x.status === 'delivered').id,
      event: delivery.find((x) => x.status === 'delivered').event_id,
      apiKey: { id: apiKey.id, token: apiKey.token },
      oauthClient: { id: oauthClient.id, client_id: oauthClient.client_id },
      grant,
      email,
      scheduledEmail,
      received,
      contactProperty: await (async () => {
        const { key } = await createOtherProject();
        const property = created(
          await api.post('/contact-properties', { key: 'plan', type: 'string', fallback_value: 'free' }, { key }),
        );
        return { id: property.id as string, key };
      })(),
      log: (await api.get('/logs?limit=1')).body.data[0].id as string,
      customEvent: await (async () => {
        const name = `a-${TAG}.signed_up`;
        const definition = created(await api.post('/events', { name, schema: { plan: 'string' } }));
        return { id: definition.id as string, name };
      })(),
      claim: await (async () => {
        const holder = await createOtherProject();
        const held = await verifiedDomain(`held-${TAG}.example.com`, {}, holder.key);
        return created(await api.post('/domains/claim', { name: held.name })).domain_id as string;
      })(),
      inbox: await (async () => {
        const address = `support-${TAG}@${domain.name}`;
        const inbox = created(await api.post('/inboxes', { email_address: address, name: `A inbox ${TAG}` }));
        const subject = `A inbox mail ${TAG}`;
        await deliverMail(
          'customer@outside.example',
          [address],
          [
            'From: Customer <customer@outside.example>',
            `To: ${address}`,
            `Subject: ${subject}`,
            `Message-ID: <inbox-${TAG}@outside.example>`,
            '',
            'Hello inbox of A',
          ],
        );
        const threads = await waitFor(
          async () => (await api.get(`/inboxes/${inbox.id}/threads`)).body.data as { id: string; subject: string }[],
          (list) => list.some((t) => t.subject === subject),
          SLOW,
        );
        const thread = threads.find((t) => t.subject === subject)!.id;
        const [message] = (await api.get(`/inboxes/${inbox.id}/threads/${thread}/emails`)).body.data as {
          id: string;
        }[];
        const label = created(await api.post(`/inboxes/${inbox.id}/labels`, { name: `A label ${TAG}` })).id as string;
        created(await api.post(`/inboxes/${inbox.id}/threads/${thread}/labels`, { labels: [label] }), 200);
        const draft = created(
          await api.post(`/inboxes/${inbox.id}/drafts`, {
            thread_id: thread,
            reply_to_email_id: message.id,
            text: 'A draft',
          }),
        ).id as string;
        return { id: inbox.id as string, address, thread, message: message.id, label, draft };
      })(),
      automation: await (async () => {
        const name = `a-${TAG}.signed_up`;
        const id = created(
          await api.post('/automations', {
            name: `A automation ${TAG}`,
            status: 'enabled',
            steps: [
              { key: 'start', type: 'trigger', config: { event_name: name } },
              { key: 'pause', type: 'delay', config: { duration: '30 days' } },
            ],
            connections: [{ from: 'start', to: 'pause' }],
          }),
        ).id as string;
        expect((await api.post('/events/send', { event: name, contact_id: contact.id })).status).toBe(202);
        const runs = await waitFor(
          () => api.get(`/automations/${id}/runs`).then((r) => r.body.data as { id: string }[]),
          (data) => data.length === 1,
          30_000,
        );
        return { id, run: runs[0].id };
      })(),
      contactImport: await (async () => {
        const form = new FormData();
        form.append(
          'file',
          new Blob([`email\nimported-${Date.now().toString(36)}@example.com\n`], { type: 'text/csv' }),
          'contacts.csv',
        );
        const answer = await fetch(`${baseUrl()}/contacts/imports`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TEST_API_KEY}` },
          body: form,
        });
        const id = ((await answer.json()) as { id: string }).id;
        await waitFor(
          () => api.get(`/contacts/imports/${id}`).then((r) => r.body.status),
          (status) => status === 'completed',
          30_000,
        );
        return id;
      })(),
    };
  }

  /** Fields that move by themselves: A's webhook hears every change of the default project; download URLs are signed per read. */
  const without = (value: any, fields: string[]) =>
    Object.fromEntries(Object.entries(value).filter(([k]) => !fields.includes(k)));
  const WEBHOOK_STATS = ['consecutive_failures', 'last_success_at', 'last_failure_at'];
  const unsigned = (attachment: any) => without(attachment, ['download_url', 'expires_at']);

  /** Every A resource as A reads it, with the answer's status. */
  async function readA(): Promise<Record<string, unknown>> {
    const get = async (path: string, key?: string) => {
      const res = await api.get(path, { key });
      return { status: res.status, body: res.body };
    };
    const reads: Record<string, Promise<unknown>> = {
      domain: get(`/domains/${a.domain.id}`),
      claim: get(`/domains/${a.claim}/claim`),
      segment: get(`/segments/${a.segment}`),
      segmentContacts: get(`/segments/${a.segment}/contacts`),
      topic: get(`/topics/${a.topic}`),
      contact: get(`/contacts/${a.contact.id}`),
      contactSegments: get(`/contacts/${a.contact.id}/segments`),
      // the contact's subscription to A's topic: the list also shows every topic of the default project
      contactTopics: listed(`/contacts/${a.contact.id}/topics`, a.topic),
      template: get(`/templates/${a.template.id}`),
      broadcast: get(`/broadcasts/${a.broadcast}`),
      suppression: get(`/suppressions/${a.suppression.id}`),
      email: get(`/emails/${a.email}`),
      scheduledEmail: get(`/emails/${a.scheduledEmail}`),
      received: get(`/emails/receiving/${a.received.id}`).then(({ status, body }) => ({
        status,
        body: { ...body, raw: unsigned(body.raw), attachments: body.attachments.map(unsigned) },
      })),
      receivedAttachments: get(`/emails/receiving/${a.received.id}/attachments`).then(({ status, body }) => ({
        status,
        body: { ...body, data: body.data.map(unsigned) },
      })),
      receivedAttachment: get(`/emails/receiving/${a.received.id}/attachments/${a.received.attachment}`).then(
        ({ status, body }) => ({ status, body: unsigned(body) }),
      ),
      webhook: get(`/webhooks/${a.webhook}`).then(({ status, body }) => ({
        status,
        body: without(body, WEBHOOK_STATS),
      })),
      delivery: get(`/webhooks/${a.webhook}/deliveries/${a.delivery}`),
      apiKey: listed('/api-keys', a.apiKey.id),
      apiKeyWorks: get('/segments?limit=1', a.apiKey.token).then((r) => r.status),
      contactProperty: get(`/contact-properties/${a.contactProperty.id}`, a.contactProperty.key),
      oauthClient: listed('/oauth/clients', a.oauthClient.id),
      grant: listed('/oauth/grants', a.grant.id),
      grantTokenWorks: get('/segments?limit=1', a.grant.accessToken).then((r) => r.status),
      log: get(`/logs/${a.log}`),
      contactImport: get(`/contacts/imports/${a.contactImport}`),
      customEvent: get(`/events/${a.customEvent.id}`),
      automation: get(`/automations/${a.automation.id}`),
      automationRun: get(`/automations/${a.automation.id}/runs/${a.automation.run}`),
      inbox: get(`/inboxes/${a.inbox.id}`),
      inboxAgent: get(`/inboxes/${a.inbox.id}/agent`),
      inboxLabels: get(`/inboxes/${a.inbox.id}/labels`),
      inboxThreads: get(`/inboxes/${a.inbox.id}/threads?folders=inbox,sent,archive,spam,trash`),
      inboxThread: get(`/inboxes/${a.inbox.id}/threads/${a.inbox.thread}`),
      inboxMessages: get(`/inboxes/${a.inbox.id}/threads/${a.inbox.thread}/emails`),
      inboxDraft: get(`/inboxes/${a.inbox.id}/drafts/${a.inbox.draft}`),
    };
    const entries = await Promise.all(Object.entries(reads).map(async ([name, read]) => [name, await read] as const));
    return Object.fromEntries(entries);
  }

  beforeAll(async () => {
    [b, a] = await Promise.all([setUpB(), setUpA()]);
    before = await readA();
    snapshotAt = new Date().toISOString();
  }, 120_000);

  afterAll(async () => {
    // A's webhook goes with the suite's runtime, stopped before this hook (declared first)
    await Promise.all(receivers.map((r) => r.stop()));
  });

  // ---------------------------------------------------------------------------------------------
  // Every keyed route with path parameters, with B's key and A's ids

  /**
   * A's values for one path parameter of a route: the id, and the other names the path accepts
   * (an address, an alias). Throws for a parameter this suite does not know, so a new route
   * cannot go untested.
   */
  function idsFor(route: Route, param: string): string[] {
    const receiving = route.path.startsWith('/emails/receiving/');
    const inbox = route.path.startsWith('/inboxes/');
    switch (param) {
      case 'inbox_id':
        return [a.inbox.id, a.inbox.address];
      case 'thread_id':
        return [a.inbox.thread];
      case 'label_id':
        return [a.inbox.label];
      case 'draft_id':
        return [a.inbox.draft];
      case 'api_key_id':
        return [a.apiKey.id];
      case 'segment_id':
        return [a.segment];
      case 'contact_id':
        return [a.contact.id, a.contact.email];
      case 'topic_id':
        return [a.topic];
      case 'domain_id':
        return route.path.includes('/claim') ? [a.claim] : [a.domain.id];
      case 'id_or_email':
        return [a.suppression.id, a.suppression.email];
      case 'email_id':
        return inbox ? [a.inbox.message] : receiving ? [a.received.id] : [a.email, a.scheduledEmail];
      case 'attachment_id':
        return [a.received.attachment];
      case 'id_or_alias':
        return [a.template.id, a.template.alias];
      case 'oauth_client_id':
        return [a.oauthClient.id];
      case 'grant_id':
        return [a.grant.id];
      case 'broadcast_id':
        return [a.broadcast];
      case 'webhookId':
        return [a.webhook];
      case 'deliveryId':
        return [a.delivery];
      case 'contact_property_id':
        return [a.contactProperty.id];
      case 'eventId':
        return [a.event];
      case 'log_id':
        return [a.log];
      case 'import_id':
        return [a.contactImport];
      case 'id_or_name':
        return [a.customEvent.id, a.customEvent.name];
      case 'automation_id':
        return [a.automation.id];
      case 'run_id':
        return [a.automation.run];
      default:
        throw new Error(
          `${route.method} ${route.path}: no A-owned id for {${param}}; add one to idsFor in test/support/isolation-suite.ts`,
        );
    }
  }

  /** B's own id for a parameter, to pair with A's in routes that take two (contact + A's segment, B's webhook + A's delivery). */
  function ownIdOfB(param: string): string | undefined {
    return ({ contact_id: b.contact, segment_id: b.segment, webhookId: b.webhook } as Record<string, string>)[param];
  }

  /**
   * A valid body per operation: valid for its schema and naming only B's own resources, so that
   * neither validation nor a reference check can answer before the path's lookup does.
   */
  const SAMPLE_BODIES: Record<string, () => unknown> = {
    updateApiKey: () => ({ name: 'renamed by B' }),
    updateSegment: () => ({ name: 'renamed by B' }),
    updateContact: () => ({ email: a.contact.email, first_name: 'Mallory', unsubscribed: true }),
    updateContactTopics: () => ({ topics: [{ id: b.topic, subscription: 'opt_out' }] }),
    updateTopic: () => ({ name: 'renamed by B', description: 'B was here' }),
    updateContactProperty: () => ({ fallback_value: 'B was here' }),
    updateDomain: () => ({
      open_tracking: true,
      click_tracking: true,
      capabilities: { sending: 'disabled', receiving: 'disabled' },
    }),
    updateEmail: () => ({ scheduled_at: inOneDay() }),
    shareEmail: () => ({ expires_in: '1 hour' }),
    updateTemplate: () => ({ name: 'renamed by B', html: '<p>B</p>' }),
    updateBroadcast: () => ({ name: 'renamed by B', segment_id: b.segment, subject: 'B' }),
    sendBroadcast: () => ({}),
    updateWebhook: () => ({ endpoint: 'https://b.example.com/hook', description: 'B was here', status: 'disabled' }),
    updateCustomEvent: () => ({ schema: null }),
    updateAutomation: () => ({ name: 'renamed by B', status: 'disabled' }),
    updateInbox: () => ({ name: 'renamed by B', from_name: 'B' }),
    updateInboxAgent: () => ({ instructions: 'B was here', actions: ['archive'] }),
    createInboxLabel: () => ({ name: `B label ${B_NAME}` }),
    updateInboxLabel: () => ({ name: 'renamed by B', color: '#000000' }),
    updateInboxThread: () => ({ read: true, folder: 'trash' }),
    addInboxThreadLabels: () => ({ labels: [MISSING] }),
    setInboxThreadLabels: () => ({ labels: [] }),
    replyInboxThreadEmail: () => ({ text: 'B replies', reply_all: true }),
    forwardInboxThreadEmail: () => ({ to: `b@${B_NAME}.example.com`, text: 'B forwards' }),
    createInboxDraft: () => ({ to: `b@${B_NAME}.example.com`, text: 'B drafts' }),
    updateInboxDraft: () => ({ text: 'B edits' }),
    sendInboxDraft: () => ({}),
  };

  const pathParamsOf = (path: string) => [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
  const fill = (path: string, values: Record<string, string>) =>
    path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, p: string) => encodeURIComponent(values[p]));

  /** What stands in for one of A's values in a request that names nothing that exists: same kind (id, address, alias). */
  const missingLike = (value: string) =>
    /^[0-9a-f-]{36}$/.test(value) ? MISSING : value.includes('@') ? `missing-${TAG}@example.com` : `missing-${TAG}`;

  interface Probe {
    /** A's values in the path */
    path: string;
    /** the same path with each of A's values replaced by one that exists nowhere */
    missingPath: string;
    /** the values each path names, to take them out of the answers before comparing them */
    values: string[];
    missingValues: string[];
  }

  /** Every combination of A's values for the parameters, plus each parameter of A's beside B's own ids for the others. */
  function probesFor(route: Route): Probe[] {
    const params = pathParamsOf(route.path);
    let combos: Record<string, string>[] = [{}];
    for (const p of params) combos = combos.flatMap((c) => idsFor(route, p).map((v) => ({ ...c, [p]: v })));
    const probes = combos.map((ofA) => ({ ofA, own: {} as Record<string, string> }));
    if (params.length > 1) {
      for (const p of params) {
        const others = params.filter((q) => q !== p);
        if (!others.every((q) => ownIdOfB(q))) continue;
        probes.push({
          ofA: { [p]: idsFor(route, p)[0] },
          own: Object.fromEntries(others.map((q) => [q, ownIdOfB(q)!])),
        });
      }
    }
    return probes.map(({ ofA, own }) => {
      const missing = Object.fromEntries(Object.entries(ofA).map(([p, v]) => [p, missingLike(v)]));
      return {
        path: fill(route.path, { ...ofA, ...own }),
        missingPath: fill(route.path, { ...missing, ...own }),
        values: Object.values(ofA),
        missingValues: Object.values(missing),
      };
    });
  }

  /** An answer with the values its request named taken out (an error message may echo what was asked for). */
  const answerOf = (res: ApiResponse, values: string[]) => ({
    status: res.status,
    body: values.reduce(
      (text, v) => text.split(v).join('<value>').split(encodeURIComponent(v)).join('<value>'),
      res.text,
    ),
  });

  const keyed = (routes as readonly Route[]).filter((r) => r.operation.auth === 'api_key');
  const withPathParams = keyed.filter((r) => pathParamsOf(r.path).length > 0);

  describe("B calling every route with A's ids in the path", () => {
    it('has an A-owned id for every path parameter, and a sample for every body, of the route table', () => {
      const known = (route: Route, param: string) => {
        try {
          return idsFor(route, param).length > 0;
        } catch {
          return false;
        }
      };
      const gaps = withPathParams.flatMap((r) => [
        ...pathParamsOf(r.path)
          .filter((p) => !known(r, p))
          .map((p) => `${r.method} ${r.path}: {${p}}`),
        ...(r.operation.body && !SAMPLE_BODIES[r.operation.operationId]
          ? [`${r.method} ${r.path}: body of ${r.operation.operationId}`]
          : []),
      ]);
      expect(gaps).toEqual([]);
    });

    it.each(withPathParams.map((r) => [`${r.method} ${r.path}`, r] as const))(
      '%s answers 404 not_found',
      async (_, route) => {
        let body: unknown;
        if (route.operation.body) {
          const sample = SAMPLE_BODIES[route.operation.operationId];
          if (!sample)
            throw new Error(
              `${route.operation.operationId} takes a body but has no sample in SAMPLE_BODIES (test/support/isolation-suite.ts)`,
            );
          body = sample();
          // the sample must pass the route's own schema, or validation could answer before the lookup
          expect(z.safeParse(route.operation.body, body).error?.issues ?? []).toEqual([]);
        }
        const answers = [];
        for (const [credential, key] of [
          ['api key', b.key],
          ['oauth token', b.oauthToken],
        ]) {
          for (const probe of probesFor(route)) {
            const res = await request(route.method, probe.path, body, { key });
            const missing = await request(route.method, probe.missingPath, body, { key });
            answers.push({
              credential,
              path: probe.path,
              status: res.status,
              name: res.body?.name,
              // and word for word what an id that exists nowhere gets: nothing tells B that A's exists
              sameAsMissing: JSON.stringify(answerOf(res, probe.values)) ===
                JSON.stringify(answerOf(missing, probe.missingValues)) || [
                answerOf(res, probe.values),
                answerOf(missing, probe.missingValues),
              ],
            });
          }
        }
        // credential management refuses OAuth tokens before any lookup (403 insufficient_scope): that tells nothing either
        const refusesTokens = requiredScope(route.operation) === 'full_access_api_key';
        expect(answers).toEqual(
          answers.map(({ credential, path }) =>
            credential === 'oauth token' && refusesTokens
              ? { credential, path, status: 403, name: 'application_error', sameAsMissing: true }
              : { credential, path, status: 404, name: 'not_found', sameAsMissing: true },
          ),
        );
      },
    );
  });

  // ---------------------------------------------------------------------------------------------
  // Ids of A named in B's bodies and queries: answered as if they did not exist

  describe("B naming A's ids in bodies and queries", () => {
    /** Sends the request with A's value and with a value that exists nowhere: the answers must match. */
    async function sameAsMissing(send: (value: string) => Promise<ApiResponse>, ofA: string, missing = MISSING) {
      const [withA, withMissing] = [await send(ofA), await send(missing)];
      // the same answer, word for word once the value the request sent is taken out of it
      const shape = (res: ApiResponse, value: string) => ({
        status: res.status,
        body: JSON.parse(res.text.split(value).join('<value>')),
      });
      expect(shape(withA, ofA)).toEqual(shape(withMissing, missing));
      expect(withA.status).toBeGreaterThanOrEqual(400);
    }

    it("refuses A's segment and topic in a new contact, in a contact's topics and in a broadcast", async () => {
      const email = () => `b-${randomBytes(4).toString('hex')}@${B_NAME}.example.com`;
      await sameAsMissing((id) => api.post('/contacts', { email: email(), segments: [id] }, asB()), a.segment);
      await sameAsMissing(
        (id) => api.post('/contacts', { email: email(), topics: [{ id, subscription: 'opt_in' }] }, asB()),
        a.topic,
      );
      await sameAsMissing(
        (id) => api.patch(`/contacts/${b.contact}/topics`, { topics: [{ id, subscription: 'opt_in' }] }, asB()),
        a.topic,
      );
      const bContact = { email: `b-contact@${B_NAME}.example.com` };
      await sameAsMissing(
        (id) => api.patch(`/contacts/${b.contact}`, { ...bContact, segments: [{ id }] }, asB()),
        a.segment,
      );
      await sameAsMissing(
        (id) => api.patch(`/contacts/${b.contact}`, { ...bContact, topics: [{ id, subscription: 'opt_out' }] }, asB()),
        a.topic,
      );
      const draft = { from: `b@${B_NAME}.example.com`, subject: 'B', html: '<p>B</p>' };
      await sameAsMissing((id) => api.post('/broadcasts', { ...draft, segment_id: id }, asB()), a.segment);
      await sameAsMissing(
        (id) => api.post('/broadcasts', { ...draft, segment_id: b.segment, topic_id: id }, asB()),
        a.topic,
      );
      await sameAsMissing((id) => api.patch(`/broadcasts/${b.broadcast}`, { segment_id: id }, asB()), a.segment);
      await sameAsMissing((id) => api.patch(`/broadcasts/${b.broadcast}`, { topic_id: id }, asB()), a.topic);
    });

    it("refuses A's template and A's sending domain for B's emails", async () => {
      const to = 'success@simulator.amazonses.com';
      await sameAsMissing((id) => api.post('/emails', { to, template: { id } }, asB()), a.template.id);
      await sameAsMissing(
        (alias) => api.post('/emails', { to, template: { id: alias } }, asB()),
        a.template.alias,
        `missing-${TAG}`,
      );
      await sameAsMissing((id) => api.post('/emails/batch', [{ to, template: { id } }], asB()), a.template.id);
      await sameAsMissing(
        (name) => api.post('/emails', { from: `b@${name}`, to, subject: 's', text: 't' }, asB()),
        a.domain.name,
        `missing-${TAG}.example.com`,
      );
      await sameAsMissing(
        (name) => api.post('/emails/batch', [{ from: `b@${name}`, to, subject: 's', text: 't' }], asB()),
        a.domain.name,
        `missing-${TAG}.example.com`,
      );
    });

    it("refuses A's OAuth client on authorize and filters by A's segment like a missing one", async () => {
      const authorize = (clientId: string) =>
        api.get(
          `/oauth/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: s256Challenge(randomBytes(48).toString('base64url')) })}`,
          asB(),
        );
      await sameAsMissing(authorize, a.oauthClient.client_id, MISSING_CLIENT_ID);
      await sameAsMissing((id) => api.get(`/contacts?segment_id=${id}`, asB()), a.segment);
    });

    it("keeps Idempotency-Keys per project: B's request with A's key makes B's own email", async () => {
      const res = await api.post(
        '/emails',
        {
          from: `b@${B_NAME}.example.com`,
          to: 'later@example.com',
          subject: 'B later',
          text: 'x',
          scheduled_at: inOneDay(),
        },
        { ...asB(), headers: { 'idempotency-key': IDEMPOTENCY_KEY } },
      );
      expect(res.status).toBe(200);
      expect(res.body.id).not.toBe(a.scheduledEmail);
      sentByB.push(res.body.id);
      expect((await api.get(`/emails/${res.body.id}`, asB())).body).toMatchObject({
        subject: 'B later',
        last_event: 'scheduled',
      });
    });

    it(
      testMode
        ? "keeps a domain name per mode: B's test domain of the same name is B's own sandbox domain (A still sends from A's: below)"
        : 'keeps a domain name with the project that has it: B cannot take it (A still sends from it: below)',
      async () => {
        const res = await api.post('/domains', { name: a.domain.name }, asB());
        expect(res.text).not.toContain(a.domain.id);
        if (!testMode) return expect(res).toMatchObject({ status: 409, body: { name: 'application_error' } });
        // a test domain claims no name in the deployment (it never reaches SES): B gets one of its own
        expect(res.status).toBe(201);
        expect(res.body.id).not.toBe(a.domain.id);
        madeByB.push(res.body.id);
        expect((await api.get(`/domains/${res.body.id}`)).status).toBe(404);
        created(await api.delete(`/domains/${res.body.id}`, asB()), 200);
      },
    );
  });

  // ---------------------------------------------------------------------------------------------
  // B's lists

  /** A's ids and the tag in the names of A's resources: none may appear in anything B reads. */
  const traces = () => [
    TAG,
    a.domain.id,
    a.segment,
    a.topic,
    a.contact.id,
    a.template.id,
    a.broadcast,
    a.suppression.id,
    a.webhook,
    a.delivery,
    a.event,
    a.apiKey.id,
    a.oauthClient.id,
    a.oauthClient.client_id,
    a.grant.id,
    a.email,
    a.scheduledEmail,
    a.received.id,
    a.received.attachment,
    a.log,
    a.customEvent.id,
    a.automation.id,
    a.automation.run,
    a.inbox.id,
    a.inbox.address,
    a.inbox.thread,
    a.inbox.message,
    a.inbox.label,
    a.inbox.draft,
  ];
  const leaked = (text: string) => traces().filter((t) => text.includes(t));
  /** B's request log quotes the paths of B's own requests, which named A's ids (the probes above): B's record, not A's data. */
  const shownToB = (route: Route, text: string) =>
    ownNamesOfB(route.path === '/logs' ? text.replace(/"endpoint":"[^"]*"/g, '') : text);
  /** In test mode B made a domain of A's name (its own, in its sandbox: the domain-name test): B's record, not A's data. */
  const ownNamesOfB = (text: string) =>
    testMode ? text.split(a.domain.name).join('<B domain of the same name>') : text;

  /** The A id a list's `after` cursor is tried with (an unknown list fails the suite until it gets one). */
  function cursorOfA(route: Route): string {
    const byPath: Record<string, string> = {
      '/api-keys': a.apiKey.id,
      '/segments': a.segment,
      '/contacts': a.contact.id,
      '/topics': a.topic,
      '/domains': a.domain.id,
      '/suppressions': a.suppression.id,
      '/emails': a.email,
      '/emails/receiving': a.received.id,
      '/templates': a.template.id,
      '/oauth/clients': a.oauthClient.id,
      '/oauth/grants': a.grant.id,
      '/contact-properties': a.contactProperty.id,
      '/broadcasts': a.broadcast,
      '/webhooks': a.webhook,
      '/webhook-events': a.delivery,
      '/logs': a.log,
      '/contacts/imports': a.contactImport,
      '/automations': a.automation.id,
      '/automations/{automation_id}/runs': a.automation.run,
      '/inboxes': a.inbox.id,
    };
    const cursor = byPath[route.path];
    if (!cursor)
      throw new Error(
        `GET ${route.path}: no A-owned cursor id; add one to cursorOfA in test/support/isolation-suite.ts`,
      );
    return cursor;
  }

  const NOT_A_LIST = new Set(['authorize']); // GET /oauth/authorize makes a code (covered above)
  const lists = keyed.filter(
    (r) => r.method === 'GET' && pathParamsOf(r.path).length === 0 && !NOT_A_LIST.has(r.operation.operationId),
  );
  // the parameters a route takes; one documented only to be refused (schema `not`: GET /events names the SDK's pagination so) is not taken
  const queryParams = (route: Route): string[] =>
    route.operation.query
      ? Object.entries(
          (
            z.toJSONSchema(route.operation.query, { io: 'input', unrepresentable: 'any' }) as {
              properties?: Record<string, object>;
            }
          ).properties ?? {},
        )
          .filter(([, schema]) => !('not' in schema))
          .map(([name]) => name)
      : [];
  const takesCursor = (route: Route) => queryParams(route).includes('after');
  const takesBefore = (route: Route) => queryParams(route).includes('before');

  describe("B's lists", () => {
    it.each(lists.map((r) => [r.path, r] as const))(
      "GET %s shows nothing of A, also from a cursor of A's",
      async (_, route) => {
        const page = await api.get(route.path + (takesCursor(route) ? '?limit=100' : ''), asB());
        expect(page.status).toBe(200);
        expect(leaked(shownToB(route, page.text))).toEqual([]);
        if (takesCursor(route)) {
          // a cursor is a position in B's own list (ids are time-ordered), never a lookup in A's
          const ofB = new Set(page.body.data.map((item: { id: string }) => item.id));
          // B's request log holds more than a page (every probe above is in it): all of it, older pages too
          for (let more = route.path === '/logs' && page.body.has_more, after = page.body.data.at(-1)?.id; more; ) {
            const older = await api.get(`/logs?limit=100&after=${after}`, asB());
            for (const item of older.body.data) ofB.add(item.id);
            [more, after] = [older.body.has_more, older.body.data.at(-1)?.id];
          }
          for (const direction of takesBefore(route) ? ['after', 'before'] : ['after']) {
            const fromA = await api.get(`${route.path}?limit=100&${direction}=${cursorOfA(route)}`, asB());
            expect({ direction, status: fromA.status }).toEqual({ direction, status: 200 });
            expect(leaked(shownToB(route, fromA.text))).toEqual([]);
            // B's request log grows with these very reads: entries newer than its first page are B's own requests since
            const newerOfB = (item: { id: string }) => route.path === '/logs' && item.id > page.body.data[0].id;
            expect(fromA.body.data.filter((item: { id: string }) => !ofB.has(item.id) && !newerOfB(item))).toEqual([]);
          }
        }
      },
    );
  });

  // ---------------------------------------------------------------------------------------------
  // Afterwards: nothing of A changed, nothing reached B

  describe('afterwards', () => {
    it('A reads every resource exactly as before', async () => {
      expect(await readA()).toEqual(before);
      // and A still sends from its domain
      const sent = await api.post('/emails', {
        from: `a@${a.domain.name}`,
        to: 'success@simulator.amazonses.com',
        subject: `A still sends ${TAG}`,
        text: 'x',
      });
      expect(sent.status).toBe(200);
      await waitFor(
        () => api.get(`/emails/${sent.body.id}`),
        (r) => r.body.last_event === 'delivered',
        SLOW,
      );
    }, 60_000);

    it("B's webhook and B's event log have only B's own events, while A's webhook got A's", async () => {
      // a last change in A; then the pipeline settles: every event of A and B has been delivered where it goes, or never will be
      const canary = created(await api.post('/api-keys', { name: `A canary ${TAG}` }));
      created(await api.delete(`/api-keys/${canary.id}`), 200);
      await own.drain();

      const ownedByB = new Set([
        b.webhook,
        b.domain,
        b.segment,
        b.topic,
        b.contact,
        b.broadcast,
        b.apiKey,
        ...sentByB,
        ...madeByB,
      ]);
      // an event of B's: B's project (and in test mode, `livemode: false`: A's events are live)
      const fromB = (e: any) => e?.project_id === b.projectId && (!testMode || e.livemode === false);
      const events = (await api.get('/events', asB())).body.data as any[];
      expect(events.filter((e) => !fromB(e) || !ownedByB.has(e.data.object.id))).toEqual([]);
      expect(leaked(ownNamesOfB(JSON.stringify(events)))).toEqual([]);
      const heard = rxB.receipts.map((r) => r.json);
      expect(heard.filter((e) => !fromB(e) || !ownedByB.has(e.data.object.id))).toEqual([]);
      expect(leaked(ownNamesOfB(rxB.receipts.map((r) => r.body).join('\n')))).toEqual([]);
      expect(heard.map((e) => e.type)).toEqual(expect.arrayContaining(['domain.created', 'domain.verified'])); // B's webhook works

      // nor the other way round: A's webhook and A's event log have nothing of B
      const ofB = (text: string) => [...(testMode ? [] : [b.projectId]), ...ownedByB].filter((t) => text.includes(t));
      expect(ofB(rxA.receipts.map((r) => r.body).join('\n'))).toEqual([]);
      expect(ofB((await api.get('/events')).text)).toEqual([]);
      if (testMode) expect(rxA.receipts.filter((r) => r.json?.livemode === false)).toEqual([]);

      const heardByA = (type: string, id: string) =>
        rxA.receipts.some((r) => r.json?.type === type && !fromB(r.json) && r.json.data.object.id === id);
      for (const [type, id] of [
        ['domain.created', a.domain.id],
        ['domain.verified', a.domain.id],
        ['email.delivered', a.email],
        ['email.scheduled', a.scheduledEmail],
        ['email.received', a.received.id],
        ['email.stored', a.received.id],
        ['api_key.created', a.apiKey.id],
        ['api_key.revoked', canary.id],
      ] as const) {
        expect({ type, id, heard: heardByA(type, id) }).toEqual({ type, id, heard: true });
      }
    }, 60_000);

    it("no event about A's resources was made by B's requests", () => {
      const ofA = new Set(traces());
      const since = rxA.receipts.filter((r) => r.json?.created_at > snapshotAt && ofA.has(r.json.data?.object?.id));
      expect(since.map((r) => `${r.json.type} ${r.json.data.object.id}`)).toEqual([]);
    });

    it("keeps template aliases per project: B may use A's alias for its own template, and each key gets its own", async () => {
      const mine = created(
        await api.post('/templates', { name: 'B template', alias: a.template.alias, html: '<p>B</p>' }, asB()),
      );
      expect((await api.get(`/templates/${a.template.alias}`, asB())).body.id).toBe(mine.id);
      expect((await api.get(`/templates/${a.template.alias}`)).body.id).toBe(a.template.id);
    });

    it("keeps suppression lists per project: B's email to an address A suppressed is delivered", async () => {
      const res = await api.post(
        '/emails',
        { from: `b@${B_NAME}.example.com`, to: a.suppression.email, subject: 'B to a suppressed address', text: 'x' },
        asB(),
      );
      expect(res.status).toBe(200);
      const email = await waitFor(
        () => api.get(`/emails/${res.body.id}`, asB()),
        (r) => !['queued', 'sending'].includes(r.body.last_event),
        SLOW,
      );
      expect(email.body.last_event).not.toBe('suppressed');
      expect((await api.get(`/suppressions/${a.suppression.id}`)).status).toBe(200);
    }, 60_000);

    it(testMode
      ? "files a message to A's domain and B's test domain for A alone: a test domain receives no mail from outside"
      : "files one message to both projects' domains as two records, each naming only its own recipients", async () => {
      const ofA = `bcc@${a.domain.name}`;
      const ofB = `bcc@${B_NAME}.example.com`;
      const subject = `For both ${randomBytes(4).toString('hex')}`;
      await deliverMail(
        'sender@outside.example',
        [ofA, ofB],
        [
          'From: Outside <sender@outside.example>',
          'To: undisclosed-recipients:;',
          `Subject: ${subject}`,
          '',
          'Hello both',
        ],
      );
      const find = (key?: string) =>
        waitFor(
          async () => (await api.get('/emails/receiving?limit=100', { key })).body.data as any[],
          (l) => l.some((e) => e.subject === subject),
        ).then((l) => l.find((e) => e.subject === subject));
      if (testMode) {
        // the inbound worker files the message for every project it is for at once: once A's record is there, B would have one too
        const recordOfA = await find();
        expect(recordOfA.received_for).toEqual([ofA]);
        const ofTestMode = (await api.get('/emails/receiving?limit=100', asB())).body.data as any[];
        expect(ofTestMode.filter((e) => e.subject === subject)).toEqual([]);
        expect((await api.get(`/emails/receiving/${recordOfA.id}`, asB())).status).toBe(404);
        return;
      }
      const [recordOfA, recordOfB] = await Promise.all([find(), find(b.key)]);
      expect(recordOfA.id).not.toBe(recordOfB.id);
      expect(recordOfA.received_for).toEqual([ofA]);
      expect(recordOfB.received_for).toEqual([ofB]);
      expect((await api.get(`/emails/receiving/${recordOfB.id}`, asB())).text).not.toContain(ofA);
      expect((await api.get(`/emails/receiving/${recordOfA.id}`)).text).not.toContain(ofB);
      expect((await api.get(`/emails/receiving/${recordOfA.id}`, asB())).status).toBe(404);
    }, 60_000);
  });
}
