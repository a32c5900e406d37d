/**
 * Domains over real HTTP against a local runtime of the file's own whose clock stands still until a
 * test moves it (LOCAL_CLOCK=manual, local/clock.ts). Its SES front verifies an identity
 * LOCAL_SES_VERIFY_DELAY_MS (1 s) after creation on that clock, or fails it when the name ends in
 * `.invalid`: a domain is `pending` until a test moves the clock past that and asks (POST .../verify),
 * or the scheduled domain check runs, which it does once a move passes its interval (a minute, its
 * schedule in functions/workers.ts). So each test knows the one status a domain has.
 */
import {
  CreateConfigurationSetCommand,
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetConfigurationSetCommand,
  GetEmailIdentityCommand,
  SESv2Client,
} from '@aws-sdk/client-sesv2';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/platform/db/client';
import { api } from '../support/http';
import { useOwnRuntime } from '../support/own-runtime';
import { setClockSource } from '../../shared/platform/clock';
import { createOtherProject, projectEvents, type RuntimeInfo, useRuntimeTable } from '../support/table';
import { runtimeCredentials } from '../support/stand-ins';
import { uniqueName } from '../support/unique';

const own = useOwnRuntime({ LOCAL_CLOCK: 'manual' }, { forFile: true, share: true });
let runtime: RuntimeInfo;
let ses: SESv2Client;
beforeAll(() => {
  runtime = useRuntimeTable(); // the table and the SES front of this file's runtime (started by the beforeAll above)
  ses = new SESv2Client({ endpoint: runtime.sesEndpoint, region: 'ap-southeast-2', credentials: runtimeCredentials() });
});
afterAll(() => ses?.destroy());

const unique = (label: string, tld = 'example.com') => `${uniqueName(label)}.${tld}`;
/** Moves the runtime's clock past the local SES's verification of the identities made so far (1 s after each was made). */
const pastVerification = () => own.move({ advance_seconds: 2 });

async function eventsOf(
  projectId: string,
  domainId: string,
): Promise<{ type: string; livemode: boolean; data: { object: Record<string, any> } }[]> {
  return (await projectEvents(projectId)).map((item) => item.event).filter((e) => e.data.object.id === domainId);
}
const typesOf = async (projectId: string, domainId: string) => (await eventsOf(projectId, domainId)).map((e) => e.type);

async function unsettledIds(): Promise<string[]> {
  const out = await documentClient.send(
    new QueryCommand({
      TableName: runtime.tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': 'DOMAIN_UNSETTLED' },
    }),
  );
  return (out.Items ?? []).map((item) => String(item.SK).slice('DOMAIN#'.length)); // GSI1 projects keys only
}

const configurationSet = (domainId: string) =>
  ses.send(new GetConfigurationSetCommand({ ConfigurationSetName: `es-${domainId}` }));

describe('POST /domains', () => {
  it('creates the domain in SES and answers 201 with its records', async () => {
    const name = unique('create');
    const res = await api.post('/domains', { name });
    expect(res.status).toBe(201);
    const { id } = res.body;
    expect(res.body).toEqual({
      object: 'domain',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name,
      status: 'pending',
      region: 'ap-southeast-2',
      records: expect.any(Array),
      tls: 'opportunistic',
      capabilities: { sending: 'enabled', receiving: 'disabled' },
      open_tracking: false,
      click_tracking: false,
      tracking_subdomain: null,
      custom_return_path: 'send',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const identity = await ses.send(new GetEmailIdentityCommand({ EmailIdentity: name }));
    const tokens = identity.DkimAttributes!.Tokens!;
    expect(tokens).toHaveLength(3);
    expect(res.body.records).toEqual([
      ...tokens.map((t) => ({
        record: 'DKIM',
        name: `${t}._domainkey.${name}`,
        type: 'CNAME',
        ttl: 'Auto',
        status: 'pending',
        value: `${t}.dkim.amazonses.com`,
      })),
      {
        record: 'MX',
        name: `send.${name}`,
        type: 'MX',
        ttl: 'Auto',
        status: 'pending',
        value: 'feedback-smtp.ap-southeast-2.amazonses.com',
        priority: 10,
      },
      {
        record: 'SPF',
        name: `send.${name}`,
        type: 'TXT',
        ttl: 'Auto',
        status: 'pending',
        value: '"v=spf1 include:amazonses.com ~all"',
      },
      {
        record: 'DMARC',
        name: `_dmarc.${name}`,
        type: 'TXT',
        ttl: 'Auto',
        status: 'not_started',
        // the deployment's reports domain (locally reports.localhost): the domain's DMARC and TLS reports come back to it
        value: `"v=DMARC1; p=none; rua=mailto:dmarc+${res.body.id}@reports.localhost;"`,
        optional: true,
      },
      {
        record: 'TLS-RPT',
        name: `_smtp._tls.${name}`,
        type: 'TXT',
        ttl: 'Auto',
        status: 'not_started',
        value: `"v=TLSRPTv1; rua=mailto:tls+${res.body.id}@reports.localhost"`,
        optional: true,
      },
    ]);
    // SES: MAIL FROM on send.<name>, the domain's own configuration set with opportunistic TLS
    expect(identity.MailFromAttributes).toMatchObject({
      MailFromDomain: `send.${name}`,
      BehaviorOnMxFailure: 'USE_DEFAULT_VALUE',
    });
    expect(identity.ConfigurationSetName).toBe(`es-${id}`);
    expect((await configurationSet(id)).DeliveryOptions).toMatchObject({ TlsPolicy: 'OPTIONAL' });

    // the same domain, still pending: the clock has not moved since the create
    const got = await api.get(`/domains/${id}`);
    expect({ status: got.status, body: got.body }).toEqual({ status: 200, body: res.body });
    const events = await eventsOf(runtime.projectId, id);
    // the contract's `data.object`, and Resend's flat domain fields beside it
    const { id: domainId, name: domainName, status, created_at, region, records } = res.body;
    expect(events.filter((e) => e.type === 'domain.created')).toEqual([
      expect.objectContaining({
        type: 'domain.created',
        livemode: true,
        data: { object: res.body, id: domainId, name: domainName, status, created_at, region, records },
      }),
    ]);
    // and nothing else
    expect(events.map((e) => e.type)).toEqual(['domain.created']);
  });

  it('sets the MAIL FROM subdomain from custom_return_path (one DNS label), in SES and in the records', async () => {
    const name = unique('return');
    const res = await api.post('/domains', { name, custom_return_path: 'Bounces' });
    expect(res.status).toBe(201);
    expect(res.body.custom_return_path).toBe('bounces');
    expect(
      res.body.records
        .filter((r: { record: string }) => r.record === 'MX' || r.record === 'SPF')
        .map((r: { name: string }) => r.name),
    ).toEqual([`bounces.${name}`, `bounces.${name}`]);
    const identity = await ses.send(new GetEmailIdentityCommand({ EmailIdentity: name }));
    expect(identity.MailFromAttributes?.MailFromDomain).toBe(`bounces.${name}`);
    for (const label of ['a.b', '-x', 'x-', 'with space', 'x'.repeat(64), '']) {
      const refused = await api.post('/domains', { name: unique('badreturn'), custom_return_path: label });
      expect({ label, status: refused.status, path: refused.body.errors?.[0]?.path }).toEqual({
        label,
        status: 422,
        path: 'custom_return_path',
      });
    }
  });

  it('lower-cases the name and honours tls and capabilities', async () => {
    const name = unique('options');
    const res = await api.post('/domains', {
      name: name.toUpperCase(),
      tls: 'enforced',
      capabilities: { receiving: 'enabled' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name,
      tls: 'enforced',
      capabilities: { sending: 'enabled', receiving: 'enabled' },
    });
    expect(res.body.records.map((r: { record: string }) => r.record)).toEqual([
      'DKIM',
      'DKIM',
      'DKIM',
      'MX',
      'SPF',
      'DMARC',
      'TLS-RPT',
      'Receiving',
    ]);
    expect(res.body.records[7]).toEqual({
      record: 'Receiving',
      name,
      type: 'MX',
      ttl: 'Auto',
      status: 'not_started',
      value: 'inbound-smtp.ap-southeast-2.amazonaws.com',
      priority: 10,
    });
    expect((await configurationSet(res.body.id)).DeliveryOptions).toMatchObject({ TlsPolicy: 'REQUIRE' });
  });

  it.each([
    [{ name: 'localhost' }, 'name'],
    [{ name: 'exa mple.com' }, 'name'],
    [{ name: '-bad.example.com' }, 'name'],
    [{ name: '10.0.0.1' }, 'name'],
    [{ name: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}.com` }, 'name'],
    [{}, 'name'],
    [{ name: 'ok.example.com', tls: 'always' }, 'tls'],
    [{ name: 'ok.example.com', capabilities: { sending: 'on' } }, 'capabilities.sending'],
    [{ name: 'ok.example.com', capabilities: { inbound: 'enabled' } }, 'capabilities.inbound'],
    [{ name: 'ok.example.com', open_tracking: true }, 'open_tracking'],
  ])('refuses %j with 422 naming %s', async (body, path) => {
    const res = await api.post('/domains', body);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ name: 'validation_error' });
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('refuses a name that exists, in this project or any other (409 domain_exists), and leaves the first intact', async () => {
    const name = unique('dup');
    const first = await api.post('/domains', { name });
    expect(first.status).toBe(201);
    const again = await api.post('/domains', { name: name.toUpperCase() });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ name: 'application_error', errors: [{ code: 'domain_exists', path: 'name' }] });
    const other = await createOtherProject();
    const elsewhere = await api.post('/domains', { name }, { key: other.key });
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.errors[0].code).toBe('domain_exists');
    expect((await api.get('/domains', { key: other.key })).body.data).toEqual([]);
    expect((await api.get(`/domains/${first.body.id}`)).status).toBe(200);
    expect((await ses.send(new GetEmailIdentityCommand({ EmailIdentity: name }))).ConfigurationSetName).toBe(
      `es-${first.body.id}`,
    );
  });

  it('refuses a name SES already has as an identity (409), without claiming the name', async () => {
    const name = unique('in-ses');
    await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: name }));
    const res = await api.post('/domains', { name });
    expect(res.status).toBe(409);
    expect(res.body.errors[0].code).toBe('domain_exists');
    const other = await createOtherProject();
    expect((await api.post('/domains', { name }, { key: other.key })).status).toBe(409); // SES again, not a leftover claim
  });

  it('gives a name to one of two creates racing for it (SES is the lock) and leaves nothing of the other', async () => {
    const name = unique('racing');
    const other = await createOtherProject();
    const answers = await Promise.all([
      api.post('/domains', { name }),
      api.post('/domains', { name }, { key: other.key }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    const winner = answers.find((a) => a.status === 201)!;
    expect(answers.find((a) => a.status === 409)!.body.errors[0].code).toBe('domain_exists');
    expect((await ses.send(new GetEmailIdentityCommand({ EmailIdentity: name }))).ConfigurationSetName).toBe(
      `es-${winner.body.id}`,
    );
    const lists = await Promise.all([api.get('/domains?limit=100'), api.get('/domains', { key: other.key })]);
    expect(lists.flatMap((l) => l.body.data).filter((d: { name: string }) => d.name === name)).toHaveLength(1);
  });

  it('recovers a name whose create died between SES and the table (an identity and no claim) once that create is 5 minutes old', async () => {
    const name = unique('orphan');
    const leftBy = async (domainId: string) => {
      await ses.send(new CreateConfigurationSetCommand({ ConfigurationSetName: `es-${domainId}` }));
      await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: name, ConfigurationSetName: `es-${domainId}` }));
    };
    // a UUIDv7 dates the create: one from a minute ago (on the runtime's clock) may still be running
    const minuteAgo = ((await own.now()) - 60_000).toString(16).padStart(12, '0');
    const recentId = `${minuteAgo.slice(0, 8)}-${minuteAgo.slice(8)}-7000-8000-000000000002`;
    await leftBy(recentId);
    expect((await api.post('/domains', { name })).status).toBe(409);
    await ses.send(new DeleteEmailIdentityCommand({ EmailIdentity: name }));

    const deadId = '01900000-0000-7000-8000-000000000003'; // 2024: long dead
    await leftBy(deadId);
    const res = await api.post('/domains', { name });
    expect(res.status).toBe(201);
    expect((await ses.send(new GetEmailIdentityCommand({ EmailIdentity: name }))).ConfigurationSetName).toBe(
      `es-${res.body.id}`,
    );
    await expect(configurationSet(deadId)).rejects.toMatchObject({ name: 'NotFoundException' });
    expect((await api.get(`/domains/${res.body.id}`)).body).toMatchObject({ name, status: 'pending' });
  });

  it('takes over the name claim of a create that died over 5 minutes ago, removing what it left in SES', async () => {
    const name = unique('crashed');
    const deadId = '01900000-0000-7000-8000-000000000001';
    await ses.send(new CreateConfigurationSetCommand({ ConfigurationSetName: `es-${deadId}` }));
    await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: name, ConfigurationSetName: `es-${deadId}` }));
    const claim = (claimedAt: Date, domainId: string) =>
      documentClient.send(
        new PutCommand({
          TableName: runtime.tableName,
          Item: {
            PK: `DOMAIN_NAME#${name}`,
            SK: 'DOMAIN_NAME',
            type: 'domain_name',
            project_id: 'gone',
            domain_id: domainId,
            name,
            state: 'creating',
            claimed_at: claimedAt.toISOString(),
            configuration_set: `es-${domainId}`,
          },
        }),
      );

    const now = await own.now(); // the runtime's clock, which dates the claims
    await claim(new Date(now - 60_000), deadId); // a minute old: may still be running
    expect((await api.post('/domains', { name })).status).toBe(409);

    await claim(new Date(now - 6 * 60_000), deadId);
    const res = await api.post('/domains', { name });
    expect(res.status).toBe(201);
    expect((await ses.send(new GetEmailIdentityCommand({ EmailIdentity: name }))).ConfigurationSetName).toBe(
      `es-${res.body.id}`,
    );
    await expect(configurationSet(deadId)).rejects.toMatchObject({ name: 'NotFoundException' });
  });
});

describe('GET /domains', () => {
  it("lists newest first and pages with limit, after and before, only the project's own", async () => {
    const other = await createOtherProject();
    const ids: string[] = [];
    for (const label of ['a', 'b', 'c'])
      ids.push((await api.post('/domains', { name: unique(label) }, { key: other.key })).body.id);
    const newestFirst = [...ids].reverse();
    const first = await api.get('/domains?limit=2', { key: other.key });
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    expect(first.body.data.map((d: { id: string }) => d.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.body.data[0]).toMatchObject({ object: 'domain', status: 'pending', records: expect.any(Array) });
    const rest = await api.get(`/domains?limit=2&after=${newestFirst[1]}`, { key: other.key });
    expect(rest.body).toMatchObject({ has_more: false });
    expect(rest.body.data.map((d: { id: string }) => d.id)).toEqual(newestFirst.slice(2));
    const back = await api.get(`/domains?limit=2&before=${newestFirst[2]}`, { key: other.key });
    expect(back.body.data.map((d: { id: string }) => d.id)).toEqual(newestFirst.slice(0, 2));
    const mine = await api.get('/domains?limit=100');
    expect(mine.body.data.map((d: { id: string }) => d.id)).not.toEqual(expect.arrayContaining([ids[0]]));
  });

  it('answers 404 for an unknown id and 422 for a malformed one', async () => {
    const unknown = await api.get('/domains/01900000-0000-7000-8000-00000000abcd');
    expect(unknown).toMatchObject({
      status: 404,
      body: { name: 'not_found', errors: [{ code: 'not_found', path: 'domain_id' }] },
    });
    const bad = await api.get('/domains/example.com');
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].path).toBe('domain_id');
  });
});

describe('PATCH /domains/{domain_id}', () => {
  it('sets a tracking subdomain: a Tracking record and the SES redirect domain', async () => {
    const name = unique('track');
    const { body: domain } = await api.post('/domains', { name });
    const res = await api.patch(`/domains/${domain.id}`, {
      tracking_subdomain: 'Links',
      open_tracking: true,
      click_tracking: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: domain.id,
      tracking_subdomain: 'links',
      open_tracking: true,
      click_tracking: true,
    });
    expect(res.body.records.at(-1)).toEqual({
      record: 'Tracking',
      name: `links.${name}`,
      type: 'CNAME',
      ttl: 'Auto',
      status: 'not_started',
      value: 'r.ap-southeast-2.awstrack.me',
    });
    expect((await configurationSet(domain.id)).TrackingOptions).toMatchObject({
      CustomRedirectDomain: `links.${name}`,
    });
    expect((await api.get(`/domains/${domain.id}`)).body).toEqual(res.body);

    const cleared = await api.patch(`/domains/${domain.id}`, { tracking_subdomain: null });
    expect(cleared.body.tracking_subdomain).toBeNull();
    expect(cleared.body.records.some((r: { record: string }) => r.record === 'Tracking')).toBe(false);
    expect((await configurationSet(domain.id)).TrackingOptions?.CustomRedirectDomain).toBeUndefined();
    expect(await typesOf(runtime.projectId, domain.id)).toEqual(['domain.created', 'domain.updated', 'domain.updated']);
  });

  it('changes tls and capabilities in SES and in the records', async () => {
    const { body: domain } = await api.post('/domains', { name: unique('caps') });
    const res = await api.patch(`/domains/${domain.id}`, {
      tls: 'enforced',
      capabilities: { receiving: 'enabled', sending: 'disabled' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      tls: 'enforced',
      capabilities: { sending: 'disabled', receiving: 'enabled' },
      open_tracking: false,
    });
    expect(res.body.records.map((r: { record: string }) => r.record)).toContain('Receiving');
    const set = await configurationSet(domain.id);
    expect(set.DeliveryOptions).toMatchObject({ TlsPolicy: 'REQUIRE' });
    expect(set.SendingOptions).toMatchObject({ SendingEnabled: false });

    const back = await api.patch(`/domains/${domain.id}`, { capabilities: { receiving: 'disabled' } });
    expect(back.body.capabilities).toEqual({ sending: 'disabled', receiving: 'disabled' });
    expect(back.body.records.map((r: { record: string }) => r.record)).not.toContain('Receiving');
  });

  it('answers 404 for an unknown domain and 422 for invalid or missing fields', async () => {
    expect((await api.patch('/domains/01900000-0000-7000-8000-00000000abcd', { open_tracking: true })).status).toBe(
      404,
    );
    const { body: domain } = await api.post('/domains', { name: unique('patch422') });
    for (const [body, path] of [
      [{}, ''],
      [{ open_tracking: 'yes' }, 'open_tracking'],
      [{ tls: 'strict' }, 'tls'],
      [{ tracking_subdomain: 'not a label' }, 'tracking_subdomain'],
      [{ capabilities: { receiving: 'maybe' } }, 'capabilities.receiving'],
      [{ name: 'renamed.example.com' }, 'name'],
    ] as const) {
      const res = await api.patch(`/domains/${domain.id}`, body);
      expect({ body, status: res.status, paths: res.body.errors?.map((e: { path: string }) => e.path) }).toEqual({
        body,
        status: 422,
        paths: expect.arrayContaining([path]),
      });
    }
    // nothing changed
    expect((await api.get(`/domains/${domain.id}`)).body).toEqual(domain);
  });
});

describe('verification', () => {
  it('goes from pending to verified, emitting domain.verified once, whatever the optional DMARC record says', async () => {
    const { body: domain } = await api.post('/domains', { name: unique('verify') });
    expect(domain.status).toBe('pending');
    expect((await api.post(`/domains/${domain.id}/verify`)).body.status).toBe('pending'); // SES is still checking: the clock stands still
    await pastVerification();
    const verified = await api.post(`/domains/${domain.id}/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body.status).toBe('verified');
    expect(verified.body.records.map((r: { record: string; status: string }) => `${r.record} ${r.status}`)).toEqual([
      'DKIM verified',
      'DKIM verified',
      'DKIM verified',
      'MX verified',
      'SPF verified',
      'DMARC not_started', // a suggestion: nothing checks it, and the domain verified without it
      'TLS-RPT not_started', // the same
    ]);
    expect((await api.get(`/domains/${domain.id}`)).body.status).toBe('verified');
    expect(await typesOf(runtime.projectId, domain.id)).toEqual(['domain.created', 'domain.verified']);

    expect((await api.post(`/domains/${domain.id}/verify`)).body.status).toBe('verified');
    expect(await typesOf(runtime.projectId, domain.id)).toEqual(['domain.created', 'domain.verified']);
    const [, event] = await eventsOf(runtime.projectId, domain.id);
    expect(event.data.object).toMatchObject({ id: domain.id, status: 'verified' });
  });

  it('emits domain.verified once when verifies race', async () => {
    const { body: domain } = await api.post('/domains', { name: unique('race') });
    await pastVerification(); // SES has verified it; the domain is still pending: the racing verifies settle it
    const answers = await Promise.all([1, 2, 3, 4].map(() => api.post(`/domains/${domain.id}/verify`)));
    expect(answers.map((a) => a.body.status)).toEqual(['verified', 'verified', 'verified', 'verified']);
    expect(await typesOf(runtime.projectId, domain.id)).toEqual(['domain.created', 'domain.verified']);
  });

  it('marks a domain SES cannot verify failed, emitting domain.verification_failed', async () => {
    const { body: domain } = await api.post('/domains', { name: unique('broken', 'example.invalid') });
    expect(domain.status).toBe('pending');
    await pastVerification();
    const res = await api.post(`/domains/${domain.id}/verify`);
    expect(res.body.status).toBe('failed');
    expect(
      res.body.records.filter((r: { record: string }) => r.record === 'DKIM').map((r: { status: string }) => r.status),
    ).toEqual(['failed', 'failed', 'failed']);
    expect(await typesOf(runtime.projectId, domain.id)).toEqual(['domain.created', 'domain.verification_failed']);
  });

  it('is also done by the scheduled worker, which finds pending domains by key and stops checking settled ones', async () => {
    const { body: domain } = await api.post('/domains', { name: unique('scheduled') });
    expect(await unsettledIds()).toContain(domain.id);
    await pastVerification(); // 2 s: the runtime's own run of the worker is a minute away
    expect((await api.get(`/domains/${domain.id}`)).body.status).toBe('pending');
    const unsettled = await unsettledIds(); // this test's domain and what earlier tests left pending, all settled in SES by now
    process.env.AWS_ENDPOINT_URL_SESV2 = runtime.sesEndpoint;
    // the worker runs in this process: on the runtime's clock, as the runtime would run it (the machine's clock
    // is behind the runtime's once the tests moved it further than they took)
    const runtimeNow = await own.now();
    setClockSource(() => runtimeNow, { standsStill: true });
    const { handler } = await import('../../functions/workers/domain-verification');
    const result = await handler({}, { getRemainingTimeInMillis: () => 20_000 }).finally(() =>
      setClockSource(Date.now),
    );
    expect(result).toEqual({ checked: unsettled.length, changed: unsettled.length });
    expect((await api.get(`/domains/${domain.id}`)).body.status).toBe('verified');
    expect(await typesOf(runtime.projectId, domain.id)).toEqual(['domain.created', 'domain.verified']);
    expect(await unsettledIds()).not.toContain(domain.id);
  });

  it('settles a domain without any verify call (the runtime runs the scheduled check)', async () => {
    const { body: domain } = await api.post('/domains', { name: unique('unattended', 'example.invalid') });
    // a minute: past the check's next run, which the move waits for (it settles the pipeline at each stop)
    await own.move({ advance: '1 minute' });
    const settled = await api.get(`/domains/${domain.id}`);
    expect(settled.body.status).toBe('failed');
    expect(await typesOf(runtime.projectId, domain.id)).toEqual(['domain.created', 'domain.verification_failed']);
  });
});

describe('DELETE /domains/{domain_id}', () => {
  it('removes the domain and its SES identity, answers 404 the second time, and frees the name', async () => {
    const name = unique('delete');
    const { body: domain } = await api.post('/domains', { name });
    const first = await api.delete(`/domains/${domain.id}`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ object: 'domain', id: domain.id, deleted: true });
    expect((await api.delete(`/domains/${domain.id}`)).status).toBe(404);
    expect((await api.get(`/domains/${domain.id}`)).status).toBe(404);
    await expect(ses.send(new GetEmailIdentityCommand({ EmailIdentity: name }))).rejects.toMatchObject({
      name: 'NotFoundException',
    });
    await expect(configurationSet(domain.id)).rejects.toMatchObject({ name: 'NotFoundException' });
    expect(await typesOf(runtime.projectId, domain.id)).toEqual(['domain.created', 'domain.deleted']);

    const other = await createOtherProject();
    const again = await api.post('/domains', { name }, { key: other.key });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(domain.id);
  });
});

describe('another project', () => {
  it('gets 404 for a domain that is not its own, on every route, and changes nothing', async () => {
    const other = await createOtherProject();
    const { body: mine } = await api.post('/domains', { name: unique('mine') });
    const key = other.key;
    expect((await api.get(`/domains/${mine.id}`, { key })).status).toBe(404);
    expect((await api.patch(`/domains/${mine.id}`, { open_tracking: true }, { key })).status).toBe(404);
    expect((await api.post(`/domains/${mine.id}/verify`, undefined, { key })).status).toBe(404);
    expect((await api.delete(`/domains/${mine.id}`, { key })).status).toBe(404);
    // unchanged, its status included: the clock stood still
    expect((await api.get(`/domains/${mine.id}`)).body).toEqual(mine);
  });
});

describe("findSendingDomain (the sender's lookup)", () => {
  it('finds a domain by name only for the project that owns it, with its status, configuration set and tenant', async () => {
    const { findSendingDomain } = await import('../../shared/domains/domains');
    const name = unique('lookup');
    const { body: domain } = await api.post('/domains', { name });
    expect(await findSendingDomain(runtime.projectId, name.toUpperCase())).toEqual({
      id: domain.id,
      name,
      status: 'pending',
      configuration_set: `es-${domain.id}`,
      sending: 'enabled',
      ses_tenant: `es-${runtime.projectId}`, // the project's SES tenant, which its sends name
    });
    expect(await findSendingDomain('another-project', name)).toBeUndefined();
    expect(await findSendingDomain(runtime.projectId, unique('nobody'))).toBeUndefined();
    await pastVerification();
    expect((await api.post(`/domains/${domain.id}/verify`)).body.status).toBe('verified');
    expect((await findSendingDomain(runtime.projectId, name))?.status).toBe('verified');
  });
});

describe('claims on names (issue 16)', () => {
  const HOUR = 3_600_000;
  const verified = async (id: string, key?: string) => {
    await pastVerification();
    expect((await api.post(`/domains/${id}/verify`, undefined, { key })).body.status).toBe('verified');
  };
  /** Makes the name's claim look `hours` old on the runtime's clock, as if it had been made then (the expiry is in hours: no test waits for it). */
  const backdateClaim = async (name: string, hours: number) =>
    documentClient.send(
      new UpdateCommand({
        TableName: runtime.tableName,
        Key: { PK: `DOMAIN_NAME#${name}`, SK: 'DOMAIN_NAME' },
        UpdateExpression: 'SET claimed_at = :at',
        ExpressionAttributeValues: { ':at': new Date((await own.now()) - hours * HOUR).toISOString() },
      }),
    );
  const domainCount = async (projectId: string) =>
    (
      await documentClient.send(
        new GetCommand({ TableName: runtime.tableName, Key: { PK: `PROJECT#${projectId}`, SK: 'DOMAIN_COUNT' } }),
      )
    ).Item?.domain_count;

  it('lets another project take over a name whose claim never verified once it expired (72 h), deleting the old domain', async () => {
    const [squatter, owner] = await Promise.all([createOtherProject(), createOtherProject()]);
    const name = unique('squat', 'example.invalid'); // the local SES never verifies `.invalid` names
    const { body: old } = await api.post('/domains', { name }, { key: squatter.key });
    expect(await domainCount(squatter.projectId)).toBe(1);
    expect((await api.post('/domains', { name }, { key: owner.key })).status).toBe(409); // not expired yet
    await backdateClaim(name, 71);
    expect((await api.post('/domains', { name }, { key: owner.key })).status).toBe(409);

    await backdateClaim(name, 73);
    const taken = await api.post('/domains', { name }, { key: owner.key });
    expect(taken.status).toBe(201);
    expect((await api.get(`/domains/${old.id}`, { key: squatter.key })).status).toBe(404);
    expect(await typesOf(squatter.projectId, old.id)).toEqual(
      expect.arrayContaining(['domain.created', 'domain.deleted']),
    );
    expect(await domainCount(squatter.projectId)).toBe(0);
    // the SES identity is per name in the account: now the new domain's, and the old configuration set is gone
    expect((await ses.send(new GetEmailIdentityCommand({ EmailIdentity: name }))).ConfigurationSetName).toBe(
      `es-${taken.body.id}`,
    );
    await expect(configurationSet(old.id)).rejects.toMatchObject({ name: 'NotFoundException' });
    const { findSendingDomain } = await import('../../shared/domains/domains');
    expect(await findSendingDomain(owner.projectId, name)).toMatchObject({ id: taken.body.id });
    expect(await findSendingDomain(squatter.projectId, name)).toBeUndefined();
    expect(await domainCount(owner.projectId)).toBe(1);
  });

  it('never expires a claim whose domain verified', async () => {
    const owner = await createOtherProject();
    const name = unique('owned');
    const { body: domain } = await api.post('/domains', { name }, { key: owner.key });
    await verified(domain.id, owner.key);
    await backdateClaim(name, 24 * 365);
    const again = await api.post('/domains', { name }, { key: (await createOtherProject()).key });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('domain_exists');
    expect((await api.get(`/domains/${domain.id}`, { key: owner.key })).body.status).toBe('verified');
  });

  it("refuses a subdomain of another project's verified domain (409 parent_domain_verified); its own project and parents are fine", async () => {
    const [owner, other] = await Promise.all([createOtherProject(), createOtherProject()]);
    const parent = unique('parent');
    const { body: domain } = await api.post('/domains', { name: parent }, { key: owner.key });
    const early = await api.post('/domains', { name: `early.${parent}` }, { key: other.key }); // before it verifies: it proves nothing yet
    expect(early.status).toBe(201);
    await verified(domain.id, owner.key);

    for (const name of [`mail.${parent}`, `a.b.c.${parent}`]) {
      const res = await api.post('/domains', { name }, { key: other.key });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({
        name: 'application_error',
        statusCode: 409,
        errors: [{ code: 'parent_domain_verified', path: 'name' }],
      });
      expect(res.body.message).toContain(parent);
    }
    expect((await api.post('/domains', { name: `mail.${parent}` }, { key: owner.key })).status).toBe(201);

    // a parent of another project's verified domain is allowed: control of the parent's DNS is the authority
    const apex = unique('apex');
    const { body: child } = await api.post('/domains', { name: `mail.${apex}` }, { key: owner.key });
    await verified(child.id, owner.key);
    expect((await api.post('/domains', { name: apex }, { key: other.key })).status).toBe(201);
  });

  it('limits the domains of a project (MAX_DOMAINS_PER_PROJECT, 50 by default): 409 domain_limit_reached, race-safe, freed by a delete', async () => {
    const project = await createOtherProject();
    const key = project.key;
    const { body: first } = await api.post('/domains', { name: unique('limit') }, { key });
    expect(await domainCount(project.projectId)).toBe(1);
    // as if 48 more existed: creating them all through SES would only make the test slow
    await documentClient.send(
      new UpdateCommand({
        TableName: runtime.tableName,
        Key: { PK: `PROJECT#${project.projectId}`, SK: 'DOMAIN_COUNT' },
        UpdateExpression: 'SET domain_count = :n',
        ExpressionAttributeValues: { ':n': 49 },
      }),
    );

    const racing = await Promise.all([1, 2, 3].map(() => api.post('/domains', { name: unique('limit') }, { key })));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const refused = racing.find((r) => r.status === 409)!;
    expect(refused.body).toMatchObject({ name: 'application_error', errors: [{ code: 'domain_limit_reached' }] });
    expect(refused.body.message).toContain('50');
    expect(await domainCount(project.projectId)).toBe(50);
    // nothing of the refused ones is left: their names are free again
    const listed = (await api.get('/domains?limit=100', { key })).body.data.map((d: { id: string }) => d.id);
    expect(listed).toHaveLength(2);

    expect((await api.delete(`/domains/${first.id}`, { key })).status).toBe(200);
    expect(await domainCount(project.projectId)).toBe(49);
    expect((await api.post('/domains', { name: unique('limit') }, { key })).status).toBe(201);
  });
});
