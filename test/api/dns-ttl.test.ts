/**
 * DNS answers are kept for their TTL (issue 40; shared/platform/net/dns.ts): through the HTTP API, a
 * domain's compliance check keeps reading an SPF record published with a TTL of 300 s after it was
 * changed, until the runtime's clock passed the TTL. On a runtime of its own with a manual clock; the
 * records are set through the control API (`PUT /_local/dns/txt/<name>` with `ttl`), answered by the
 * runtime's DNS server over the same wire code as on AWS.
 */
import { useOwnRuntime } from '../support/own-runtime';

const runtime = useOwnRuntime({ LOCAL_CLOCK: 'manual' }, { share: true });
const { call } = runtime;

const GOOD_SPF = 'v=spf1 include:amazonses.com ~all';

async function spfRule(domainId: string): Promise<{ status: string; evidence: string }> {
  const answer = await call('GET', `/domains/${domainId}/compliance`);
  expect(answer.status).toBe(200);
  return answer.body.rules.find((r: { rule: string }) => r.rule === 'spf');
}

describe('DNS answers kept for their TTL', () => {
  it("answers a compliance check from the record's cached answer until its TTL passed on the clock", async () => {
    const name = `ttl-${Date.now().toString(36)}.example.net`;
    const created = await call('POST', '/domains', { name });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const published = await call('PUT', `/_local/dns/txt/send.${name}`, { values: [GOOD_SPF], ttl: 300 });
    expect(published).toMatchObject({
      status: 200,
      body: { object: 'dns_txt', name: `send.${name}`, values: [GOOD_SPF], ttl: 300 },
    });
    expect((await spfRule(id)).status).toBe('pass');

    // changed to a record that fails: the answer kept for 300 s still passes
    const changed = await call('PUT', `/_local/dns/txt/send.${name}`, { values: ['v=spf1 -all'], ttl: 300 });
    expect(changed.status).toBe(200);
    expect((await spfRule(id)).status).toBe('pass');
    await runtime.move({ advance_seconds: 299 });
    expect((await spfRule(id)).status).toBe('pass');

    // past the TTL on the runtime's clock: asked again, it fails
    await runtime.move({ advance_seconds: 2 });
    expect(await spfRule(id)).toMatchObject({ status: 'fail' });
  });

  it('takes a TTL of whole seconds from 0 to a day, 0 unless given', async () => {
    const name = `ttl-${Date.now().toString(36)}.example.org`;
    for (const ttl of [-1, 1.5, 86_401, '300', null]) {
      expect(await call('PUT', `/_local/dns/txt/${name}`, { values: ['v'], ttl })).toMatchObject({
        status: 422,
        body: { errors: [{ code: 'invalid_ttl', path: 'ttl' }] },
      });
    }
    expect((await call('PUT', `/_local/dns/mx/${name}`, { values: ['10 mx.example.org'], ttl: 86_400 })).body).toEqual({
      object: 'dns_mx',
      name,
      values: ['10 mx.example.org'],
      ttl: 86_400,
    });
    expect((await call('PUT', `/_local/dns/txt/${name}`, { values: ['v'] })).body.ttl).toBe(0);
    expect((await call('GET', `/_local/dns/mx/${name}`)).body.ttl).toBe(86_400);
  });
});
