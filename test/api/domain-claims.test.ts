/**
 * Domain claims through the official SDK (`domains.claims.create/get/verify`) against a local runtime
 * of the file's own whose clock stands still until a test moves it (LOCAL_CLOCK=manual): project B
 * holds a verified domain, project A claims it, publishes the TXT record through the runtime's DNS
 * stand-in (`PUT /_local/dns/txt/<name>`), and the grace period (DOMAIN_CLAIM_GRACE_HOURS, 72) passes
 * with a move of the clock. B hears of it through its webhook (`domain.claim_started`, `domain.deleted`).
 */
import { GetEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { Resend } from 'resend';
import { documentClient } from '../../shared/platform/db/client';
import * as keys from '../../shared/platform/db/keys';
import { baseUrl } from '../support/http';
import { useOwnRuntime } from '../support/own-runtime';
import { runtimeCredentials } from '../support/stand-ins';
import { createOtherProject, type RuntimeInfo, useRuntimeTable } from '../support/table';
import { uniqueName } from '../support/unique';
import { WebhookReceiver } from '../support/webhook-receiver';

const own = useOwnRuntime({ LOCAL_CLOCK: 'manual' }, { forFile: true, share: true });

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const HOUR = 3_600_000;

function data<T>(result: { data: T | null; error: unknown }): T {
  expect(result.error).toBeNull();
  return result.data as T;
}

interface Project {
  projectId: string;
  key: string;
  sdk: Resend;
}
async function project(): Promise<Project> {
  const made = await createOtherProject();
  return { ...made, sdk: new Resend(made.key, { baseUrl: baseUrl() }) };
}

let rx: WebhookReceiver;
let runtime: RuntimeInfo;
let ses: SESv2Client;
beforeAll(async () => {
  runtime = useRuntimeTable(); // the table and SES of this file's runtime (started by the beforeAll above)
  ses = new SESv2Client({ endpoint: runtime.sesEndpoint, region: 'ap-southeast-2', credentials: runtimeCredentials() });
  rx = await new WebhookReceiver().start();
});
afterAll(() => {
  ses?.destroy();
  return rx?.stop();
});

/** A verified domain of `holder` (the local SES verifies an identity 1 s after its creation, on the runtime's clock). */
async function heldDomain(holder: Project, label: string): Promise<{ id: string; name: string }> {
  const name = `${uniqueName(label)}.example.com`;
  const domain = data(await holder.sdk.domains.create({ name }));
  await own.move({ advance_seconds: 2 });
  expect(data(await holder.sdk.domains.verify(domain.id))).toMatchObject({ object: 'domain' });
  expect(data(await holder.sdk.domains.get(domain.id)).status).toBe('verified');
  return { id: domain.id, name };
}

/** Publishes (or with [] removes) TXT values at `name` in the runtime's DNS stand-in. */
async function publish(name: string, values: string[]): Promise<void> {
  const answer = await own.call('PUT', `/_local/dns/txt/${name}`, { values });
  expect(answer).toMatchObject({ status: 200, body: { object: 'dns_txt', name, values } });
}

/** B's webhook deliveries of `type` about the domain `domainId`, once the pipeline settled. */
async function delivered(type: string, domainId: string): Promise<any[]> {
  await own.drain();
  return rx.receipts.map((r) => r.json).filter((e) => e?.type === type && e.data?.object?.id === domainId);
}

describe('domains.claims through the official SDK', () => {
  it('claims a domain another project holds: pending, verified once the record exists, completed after the grace period', async () => {
    const holder = await project();
    const claimant = await project();
    data(
      await holder.sdk.webhooks.create({
        endpoint: rx.url,
        events: ['domain.claim_started', 'domain.deleted'] as never,
      }),
    );
    const held = await heldDomain(holder, 'claimed');

    // 1. the claim: pending, with the TXT record to publish
    const claim = data(await claimant.sdk.domains.claims.create({ name: held.name }));
    expect(claim).toEqual({
      object: 'domain_claim',
      id: expect.stringMatching(ID),
      name: held.name,
      status: 'pending',
      domain_id: expect.stringMatching(ID),
      region: 'ap-southeast-2',
      record: {
        type: 'TXT',
        name: `_resend-claim.${held.name}`,
        value: expect.stringMatching(/^resend-domain-claim=[0-9a-f]{32}$/),
        ttl: 'Auto',
      },
      blocked_reason: null,
      failure_reason: null,
      created_at: expect.stringMatching(TIME),
      expires_at: expect.stringMatching(TIME),
      grace_ends_at: null,
    });
    expect(Date.parse(claim.expires_at) - Date.parse(claim.created_at)).toBe(7 * 24 * HOUR);
    expect(data(await claimant.sdk.domains.claims.get(claim.domain_id!))).toEqual(claim);

    // 2. no record yet: still pending; a wrong value does not count either
    expect(data(await claimant.sdk.domains.claims.verify(claim.domain_id!)).status).toBe('pending');
    await publish(claim.record.name, ['resend-domain-claim=0123456789abcdef0123456789abcdef']);
    expect(data(await claimant.sdk.domains.claims.verify(claim.domain_id!)).status).toBe('pending');

    // 3. the record: verified, the grace period starts, the holder is told
    await publish(claim.record.name, ['v=spf1 -all', claim.record.value]);
    const verified = data(await claimant.sdk.domains.claims.verify(claim.domain_id!));
    expect(verified).toMatchObject({ status: 'verified', blocked_reason: null, domain_id: claim.domain_id });
    const now = await own.now();
    expect(Date.parse((verified as { grace_ends_at?: string }).grace_ends_at as string)).toBe(now + 72 * HOUR);
    const [told] = await delivered('domain.claim_started', held.id);
    expect(told).toMatchObject({
      type: 'domain.claim_started',
      data: { object: { object: 'domain', id: held.id, name: held.name, claim: { id: claim.id } } },
    });
    expect(JSON.stringify(told)).not.toContain(claimant.projectId); // the holder learns nothing of the claimant

    // 4. during the grace period: verified, the domain still the holder's
    await own.move({ advance: '71 hours' });
    expect(data(await claimant.sdk.domains.claims.verify(claim.domain_id!)).status).toBe('verified');
    expect(data(await holder.sdk.domains.get(held.id)).name).toBe(held.name);

    // 5. after it: completed; the domain is the claimant's (with the promised id), the holder's is gone
    await own.move({ advance: '1 hour 1 minute' });
    const completed = data(await claimant.sdk.domains.claims.verify(claim.domain_id!));
    expect(completed).toMatchObject({ status: 'completed', domain_id: claim.domain_id, failure_reason: null });
    expect(data(await claimant.sdk.domains.claims.get(claim.domain_id!)).status).toBe('completed');
    const moved = data(await claimant.sdk.domains.get(claim.domain_id!));
    expect(moved).toMatchObject({ id: claim.domain_id, name: held.name });
    const gone = await holder.sdk.domains.get(held.id);
    expect(gone.error).toMatchObject({ statusCode: 404 });
    expect(await delivered('domain.deleted', held.id)).toHaveLength(1);
    // the claimant's domain verifies as any new one (fresh DKIM keys in SES), and sends
    await own.move({ advance_seconds: 2 });
    expect(data(await claimant.sdk.domains.verify(claim.domain_id!))).toMatchObject({ object: 'domain' });
    expect(data(await claimant.sdk.domains.get(claim.domain_id!)).status).toBe('verified');
    data(
      await claimant.sdk.emails.send({
        from: `hello@${held.name}`,
        to: 'delivered@simulator.amazonses.com',
        subject: 'ours now',
        text: 'hi',
      }),
    );
    const refused = await holder.sdk.emails.send({
      from: `hello@${held.name}`,
      to: 'delivered@simulator.amazonses.com',
      subject: 'not ours',
      text: 'hi',
    });
    expect(refused.error).toMatchObject({ statusCode: 422 });
    // a completed claim stays completed
    expect(data(await claimant.sdk.domains.claims.verify(claim.domain_id!)).status).toBe('completed');
  });

  it('finishes a completion that died after taking the name and before SES: the next verify runs it again', async () => {
    const holder = await project();
    const claimant = await project();
    const held = await heldDomain(holder, 'crashed');
    const claim = data(await claimant.sdk.domains.claims.create({ name: held.name }));
    await publish(claim.record.name, [claim.record.value]);
    expect(data(await claimant.sdk.domains.claims.verify(claim.domain_id!)).status).toBe('verified');
    await own.move({ advance: '72 hours 1 minute' });
    // what the completion's first transaction leaves when its Lambda dies right after it: the name taken
    // for the promised id (`creating`), the holder's domain deleted, the claim transferring; SES untouched
    const now = new Date(await own.now()).toISOString();
    await documentClient.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: runtime.tableName,
              Key: keys.domainName(held.name),
              UpdateExpression:
                'SET project_id = :p, domain_id = :d, #state = :creating, claimed_at = :now, configuration_set = :cs REMOVE #status, verified_at, sending, ses_tenant',
              ExpressionAttributeNames: { '#state': 'state', '#status': 'status' },
              ExpressionAttributeValues: {
                ':p': claimant.projectId,
                ':d': claim.domain_id,
                ':creating': 'creating',
                ':now': now,
                ':cs': `es-${claim.domain_id}`,
              },
            },
          },
          { Delete: { TableName: runtime.tableName, Key: keys.domain(holder.projectId, held.id) } },
          {
            Update: {
              TableName: runtime.tableName,
              Key: keys.domainClaim(claimant.projectId, claim.domain_id!),
              UpdateExpression: 'SET transferring = :t',
              ExpressionAttributeValues: { ':t': true },
            },
          },
        ],
      }),
    );
    // the holder's identity is still in SES
    expect((await ses.send(new GetEmailIdentityCommand({ EmailIdentity: held.name }))).ConfigurationSetName).toBe(
      `es-${held.id}`,
    );
    expect(data(await claimant.sdk.domains.claims.verify(claim.domain_id!)).status).toBe('completed');
    expect(data(await claimant.sdk.domains.get(claim.domain_id!)).name).toBe(held.name);
    expect((await ses.send(new GetEmailIdentityCommand({ EmailIdentity: held.name }))).ConfigurationSetName).toBe(
      `es-${claim.domain_id}`,
    );
  });

  it('is blocked for good when the holder sends from the domain during the grace period', async () => {
    const holder = await project();
    const claimant = await project();
    const held = await heldDomain(holder, 'objects');
    const claim = data(await claimant.sdk.domains.claims.create({ name: held.name }));
    await publish(claim.record.name, [claim.record.value]);
    expect(data(await claimant.sdk.domains.claims.verify(claim.domain_id!)).status).toBe('verified');

    data(
      await holder.sdk.emails.send({
        from: `still-here@${held.name}`,
        to: 'delivered@simulator.amazonses.com',
        subject: 'mine',
        text: 'still mine',
      }),
    );
    expect(data(await claimant.sdk.domains.claims.verify(claim.domain_id!))).toMatchObject({
      status: 'blocked',
      blocked_reason: 'recent_owner_activity',
    });
    await own.move({ advance: '73 hours' });
    expect(data(await claimant.sdk.domains.claims.verify(claim.domain_id!))).toMatchObject({
      status: 'blocked',
      blocked_reason: 'recent_owner_activity',
    });
    expect(data(await holder.sdk.domains.get(held.id)).name).toBe(held.name);
  });

  it('waits while the holder has mail from the domain scheduled, then completes once it is canceled', async () => {
    const holder = await project();
    const claimant = await project();
    const held = await heldDomain(holder, 'scheduled');
    const later = data(
      await holder.sdk.emails.send({
        from: `later@${held.name}`,
        to: 'delivered@simulator.amazonses.com',
        subject: 'in ten days',
        text: 'later',
        scheduledAt: new Date((await own.now()) + 10 * 24 * HOUR).toISOString(),
      }),
    );
    const claim = data(await claimant.sdk.domains.claims.create({ name: held.name }));
    await publish(claim.record.name, [claim.record.value]);
    await own.move({ advance_seconds: 1 }); // the clock stands still: an email of the claim's own millisecond counts as sent after it
    expect(data(await claimant.sdk.domains.claims.verify(claim.domain_id!)).status).toBe('verified');
    await own.move({ advance: '72 hours 1 minute' });
    expect(data(await claimant.sdk.domains.claims.verify(claim.domain_id!))).toMatchObject({
      status: 'blocked',
      blocked_reason: 'pending_scheduled_emails',
    });
    data(await holder.sdk.emails.cancel(later.id));
    expect(data(await claimant.sdk.domains.claims.verify(claim.domain_id!))).toMatchObject({
      status: 'completed',
      blocked_reason: null,
    });
    expect(data(await claimant.sdk.domains.get(claim.domain_id!)).name).toBe(held.name);
  });

  it('supersedes an older claim of the name, cancels one, expires one never verified, and refuses names nobody else holds', async () => {
    const holder = await project();
    const first = await project();
    const second = await project();
    const held = await heldDomain(holder, 'contested');
    const older = data(await first.sdk.domains.claims.create({ name: held.name }));
    const newer = data(await second.sdk.domains.claims.create({ name: held.name }));
    expect(newer.record.value).not.toBe(older.record.value);
    expect(data(await first.sdk.domains.claims.get(older.domain_id!)).status).toBe('superseded');
    // the record of the superseded claim moves nothing
    await publish(older.record.name, [older.record.value]);
    expect(data(await first.sdk.domains.claims.verify(older.domain_id!)).status).toBe('superseded');
    // another project cannot read the claim
    expect((await second.sdk.domains.claims.get(older.domain_id!)).error).toMatchObject({ statusCode: 404 });

    // deleting the promised domain id cancels a claim not completed (Resend's way); then the id is gone
    const other = await heldDomain(holder, 'withdrawn');
    const withdrawn = data(await first.sdk.domains.claims.create({ name: other.name }));
    expect(data(await first.sdk.domains.remove(withdrawn.domain_id!))).toMatchObject({ deleted: true });
    expect(data(await first.sdk.domains.claims.get(withdrawn.domain_id!)).status).toBe('canceled');
    expect((await first.sdk.domains.remove(withdrawn.domain_id!)).error).toMatchObject({ statusCode: 404 });
    await publish(withdrawn.record.name, [withdrawn.record.value]);
    expect(data(await first.sdk.domains.claims.verify(withdrawn.domain_id!)).status).toBe('canceled');

    // a claim never verified expires with its window
    await own.move({ advance: '7 days 1 minute' });
    expect(data(await second.sdk.domains.claims.get(newer.domain_id!)).status).toBe('expired');
    await publish(newer.record.name, [newer.record.value]);
    expect(data(await second.sdk.domains.claims.verify(newer.domain_id!)).status).toBe('expired');

    // a name nobody holds, or the project's own: POST /domains is the way
    const free = await first.sdk.domains.claims.create({ name: `${uniqueName('free')}.example.com` });
    expect(free.error).toMatchObject({ statusCode: 422 });
    const own_ = await holder.sdk.domains.claims.create({ name: held.name });
    expect(own_.error).toMatchObject({ statusCode: 422 });
    const answer = await own.call('POST', '/domains/claim', { name: held.name }, holder.key);
    expect(answer.body.errors).toEqual([{ code: 'domain_not_claimable', message: expect.any(String), path: 'name' }]);
  });

  it("sets, shows and removes the DNS stand-in's TXT records through the control API", async () => {
    const name = `_resend-claim.${uniqueName('dns')}.example.com`;
    expect((await own.call('GET', `/_local/dns/txt/${name}`)).body).toEqual({
      object: 'dns_txt',
      name,
      values: [],
      ttl: 0,
    });
    // names compare without case and without the trailing dot
    expect((await own.call('PUT', `/_local/dns/txt/${name.toUpperCase()}`, { values: ['one', 'two'] })).body).toEqual({
      object: 'dns_txt',
      name,
      values: ['one', 'two'],
      ttl: 0,
    });
    expect((await own.call('GET', `/_local/dns/txt/${name}.`)).body.values).toEqual(['one', 'two']);
    expect(await own.call('PUT', `/_local/dns/txt/${name}`, { values: 'one' })).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'invalid_value', path: 'values' }] },
    });
    expect((await own.call('DELETE', `/_local/dns/txt/${name}`)).body.values).toEqual([]);
    expect((await own.call('GET', `/_local/dns/txt/${name}`)).body.values).toEqual([]);
    expect((await own.call('PUT', `/_local/dns/txt/${name}`, { values: [] }, null)).status).toBe(401);
  });
});
