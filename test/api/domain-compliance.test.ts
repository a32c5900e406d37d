/**
 * GET /domains/{id}/compliance (issue 40): each rule passes or fails with the records that make it
 * so. DNS is the local runtime's stand-in (`PUT /_local/dns/txt|mx/<name>`), set per name by the test.
 */
import { api, baseUrl } from '../support/http';
import { createOtherProject, projectEvents, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';

useRuntimeTable();

/** The control API takes any full_access key of the runtime. */
async function setDns(key: string, kind: 'txt' | 'mx', name: string, values: string[]): Promise<void> {
  const res = await fetch(`${baseUrl()}/_local/dns/${kind}/${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ values }),
  });
  expect(res.status).toBe(200);
}

type Rules = Record<string, { status: string; evidence: string; fix: string | null }>;
const rulesOf = (body: { rules: { rule: string; status: string; evidence: string; fix: string | null }[] }): Rules =>
  Object.fromEntries(body.rules.map(({ rule, ...rest }) => [rule, rest]));
const statuses = (rules: Rules) => Object.fromEntries(Object.entries(rules).map(([name, r]) => [name, r.status]));

describe('GET /domains/{id}/compliance', () => {
  it('fails each rule without its records and passes it with them', async () => {
    const { key, projectId } = await createOtherProject();
    const as = { key };
    const unique = `cmp-${Date.now().toString(36)}`;
    const name = `mail.${unique}.example.net`;
    const created = await api.post('/domains', { name, capabilities: { receiving: 'enabled' } }, as);
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    // nothing published, SES still checking DKIM
    const first = await api.get(`/domains/${id}/compliance`, as);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'domain_compliance', domain_id: id, name, status: 'fail' });
    const before = rulesOf(first.body);
    expect(statuses(before)).toEqual({
      spf: 'fail',
      dkim: 'warn',
      dmarc: 'fail',
      dmarc_reports: 'warn',
      alignment: 'fail',
      mx: 'fail',
      one_click_unsubscribe: 'pass',
      complaint_rate: 'pass',
      tls: 'warn',
    });
    expect(before.spf.fix).toBe(`Publish TXT "v=spf1 include:amazonses.com ~all" at send.${name}.`);
    expect(before.dmarc.fix).toBe(
      `Publish TXT "v=DMARC1; p=none; rua=mailto:dmarc+${id}@reports.localhost;" at _dmarc.${name}.`,
    );
    expect(before.mx.fix).toBe(`Publish MX 10 inbound-smtp.ap-southeast-2.amazonaws.com at ${name}.`);

    // the records published, DKIM verified by SES: every rule passes
    await waitFor(
      () => api.post(`/domains/${id}/verify`, undefined, as),
      (r) => r.body.status === 'verified',
    );
    await setDns(key, 'txt', `send.${name}`, ['v=spf1 include:amazonses.com ~all']);
    await setDns(key, 'txt', `_dmarc.${unique}.example.net`, [
      `v=DMARC1; p=quarantine; rua=mailto:dmarc+${id}@reports.localhost`,
    ]); // the parent's policy covers it
    await setDns(key, 'txt', `_smtp._tls.${name}`, [`v=TLSRPTv1; rua=mailto:tls+${id}@reports.localhost`]);
    await setDns(key, 'mx', name, ['10 inbound-smtp.ap-southeast-2.amazonaws.com']);
    const passing = await api.get(`/domains/${id}/compliance`, as);
    expect(passing.body.status).toBe('pass');
    const after = rulesOf(passing.body);
    expect(Object.values(after).every((r) => r.status === 'pass' && r.fix === null)).toBe(true);
    expect(after.dmarc.evidence).toBe(`DMARC at _dmarc.${unique}.example.net: p=quarantine.`);
    // the first check recorded its statuses; this one changed them: domain.compliance_changed, once
    expect((await api.get(`/domains/${id}/compliance`, as)).body.status).toBe('pass'); // unchanged: nothing more
    const changed = (await projectEvents(projectId)).filter((e) => e.event_type === 'domain.compliance_changed');
    expect(changed).toHaveLength(1);
    expect(changed[0].event.data.object).toMatchObject({
      object: 'domain_compliance_change',
      domain_id: id,
      name,
      status: 'pass',
      previous_status: 'fail',
    });
    expect(changed[0].event.data.object.changes).toContainEqual({ rule: 'spf', from: 'fail', to: 'pass' });
    expect(changed[0].event.data.object.changes).toContainEqual({ rule: 'dkim', from: 'warn', to: 'pass' });
    expect(changed[0].event.data.object.changes.map((c: { rule: string }) => c.rule)).not.toContain(
      'one_click_unsubscribe',
    );

    // each rule fails again with the record that breaks it
    await setDns(key, 'txt', `send.${name}`, ['v=spf1 include:_spf.google.com ~all']);
    await setDns(key, 'txt', `_dmarc.${name}`, ['v=DMARC1; p=bogus']); // its own record wins over the parent's
    await setDns(key, 'mx', name, ['10 mx.elsewhere.example']);
    const broken = rulesOf((await api.get(`/domains/${id}/compliance`, as)).body);
    expect(statuses(broken)).toMatchObject({ spf: 'fail', dmarc: 'fail', dmarc_reports: 'warn', mx: 'fail' });
    expect(broken.mx.evidence).toBe(
      'MX does not name inbound-smtp.ap-southeast-2.amazonaws.com: 10 mx.elsewhere.example.',
    );

    // strict SPF alignment: the MAIL FROM subdomain no longer aligns, DKIM still does
    await setDns(key, 'txt', `_dmarc.${name}`, [`v=DMARC1; p=none; aspf=s; rua=mailto:dmarc+${id}@reports.localhost`]);
    const strict = rulesOf((await api.get(`/domains/${id}/compliance`, as)).body);
    expect(strict.alignment).toMatchObject({
      status: 'warn',
      evidence: `From ${name} aligns with DKIM (d=${name}) only.`,
    });
    expect(strict.dmarc.status).toBe('pass');

    // the stand-in takes MX values as "<priority> <host>" only
    const bad = await fetch(`${baseUrl()}/_local/dns/mx/${name}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ values: ['inbound-smtp.ap-southeast-2.amazonaws.com'] }),
    });
    expect(bad.status).toBe(422);

    // another project cannot check it; a bad id is 422
    const other = await createOtherProject();
    expect((await api.get(`/domains/${id}/compliance`, { key: other.key })).status).toBe(404);
    expect((await api.get('/domains/not-an-id/compliance', as)).status).toBe(422);
  }, 60_000);

  it('fails DKIM when SES could not find the records (the local SES fails a name under .invalid)', async () => {
    const { key } = await createOtherProject();
    const created = await api.post('/domains', { name: `cmp-${Date.now().toString(36)}.example.invalid` }, { key });
    expect(created.status).toBe(201);
    await waitFor(
      () => api.post(`/domains/${created.body.id}/verify`, undefined, { key }),
      (r) => r.body.status === 'failed',
    );
    const dkim = rulesOf((await api.get(`/domains/${created.body.id}/compliance`, { key })).body).dkim;
    expect(dkim).toEqual({
      status: 'fail',
      evidence: 'SES could not find the DKIM records: DKIM failed.',
      fix: "Publish the domain's three DKIM CNAME records (its `records`), then POST /domains/{id}/verify.",
    });
  });

  it("fails the complaint rate from the project's complaints of the last 7 days", async () => {
    const { key } = await createOtherProject();
    const as = { key };
    const name = `cmp-rate-${Date.now().toString(36)}.example.net`;
    const created = await api.post('/domains', { name }, as);
    const id = created.body.id as string;
    await waitFor(
      () => api.post(`/domains/${id}/verify`, undefined, as),
      (r) => r.body.status === 'verified',
    );
    const sent = await api.post(
      '/emails',
      { from: `news@${name}`, to: 'complaint@simulator.amazonses.com', subject: 'Hi', text: 'Hello' },
      as,
    );
    expect(sent.status).toBe(200);
    const check = await waitFor(
      () => api.get(`/domains/${id}/compliance`, as),
      (r) => rulesOf(r.body).complaint_rate.status === 'fail',
      60_000,
    );
    expect(rulesOf(check.body).complaint_rate.evidence).toBe(
      '1 complaints in 1 live sends of the project over 7 days (100.000%).',
    );
  }, 90_000);
});
