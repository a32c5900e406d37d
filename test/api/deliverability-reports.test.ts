/**
 * A domain's DMARC and TLS reports end to end (issue 40): mailed over SMTP to the local runtime's
 * inbound server at the domain's report addresses (its records name them), read by the inbound
 * worker, and answered by GET /domains/{id}/dmarc and /tls-reports. What is not a report about
 * the domain is dropped and counted, never kept; a report mailed twice is kept once.
 */
import { zipSync } from 'fflate';
import { api } from '../support/http';
import { DAY, dmarcXml, gz, mailReport, tlsJson, today } from '../support/reports';
import { createOtherProject, projectEvents, useRuntimeTable } from '../support/table';
import { WebhookReceiver } from '../support/webhook-receiver';
import { waitFor } from '../support/wait';

useRuntimeTable();

describe("a domain's DMARC and TLS reports", () => {
  it('are read from mail to its report addresses, folded per day and source, and what is not a report about it is counted, not kept', async () => {
    const project = await createOtherProject();
    const as = { key: project.key };
    const name = `reports-${Date.now().toString(36)}.example.com`;
    const created = await api.post('/domains', { name }, as);
    expect(created.status).toBe(201);
    const domainId = created.body.id as string;
    const receiver = await new WebhookReceiver().start();
    expect(
      (await api.post('/webhooks', { endpoint: receiver.url, events: ['domain.dmarc_failures'] }, as)).status,
    ).toBe(201);
    const dmarcAddress = `dmarc+${domainId}@reports.localhost`;
    expect(created.body.records.find((r: { record: string }) => r.record === 'DMARC').value).toBe(
      `"v=DMARC1; p=none; rua=mailto:${dmarcAddress};"`,
    );

    const rows = [
      { ip: '192.0.2.10', count: 120, pass: true },
      { ip: '198.51.100.7', count: 12, pass: false }, // at the alert's threshold (10) and over
      { ip: '2001:db8::25', count: 3, pass: false },
    ];
    await mailReport(dmarcAddress, [
      { name: `google.com!${name}!1.xml.gz`, type: 'application/gzip', bytes: gz(dmarcXml(name, 'r-1', rows)) },
    ]);
    const summary = await waitFor(
      () => api.get(`/domains/${domainId}/dmarc`, as),
      (r) => r.body.reports === 1,
      60_000,
    );
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({
      object: 'dmarc_summary',
      domain_id: domainId,
      report_address: dmarcAddress,
      reports: 1,
      messages: 135,
      dmarc_pass: 120,
      dmarc_fail: 15,
      pass_rate: 0.8889,
      days: [{ date: new Date((today() - DAY) * 1000).toISOString().slice(0, 10), reports: 1, messages: 135 }],
      dropped: {},
    });
    expect(
      summary.body.top_failing_sources.map((s: { source_ip: string; dmarc_fail: number }) => [
        s.source_ip,
        s.dmarc_fail,
      ]),
    ).toEqual([
      ['198.51.100.7', 12],
      ['2001:db8::25', 3],
    ]);
    // the source over the threshold raises domain.dmarc_failures, to GET /events and to the webhook
    const alert = {
      object: 'dmarc_failures',
      domain_id: domainId,
      domain: name,
      report: { org_name: 'google.com', report_id: 'r-1' },
      threshold: 10,
      sources: [{ source_ip: '198.51.100.7', messages: 12, dmarc_fail: 12, header_from: [name] }],
    };
    const sent = await waitFor(
      async () => receiver.receipts.filter((r) => r.json?.type === 'domain.dmarc_failures'),
      (found) => found.length === 1,
      60_000,
    );
    expect(sent[0].json.data.object).toMatchObject(alert);
    expect(summary.body.top_failing_sources[0]).toMatchObject({ reporters: ['google.com'], header_from: [name] });

    // the same report again (a zip this time), a report about another domain, an XML bomb and a message with nothing attached
    const bomb =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><feedback>&lol2;</feedback>';
    await mailReport(dmarcAddress, [
      {
        name: 'again.zip',
        type: 'application/zip',
        bytes: zipSync({ 'again.xml': Buffer.from(dmarcXml(name, 'r-1', rows)) }),
      },
      { name: 'other.xml.gz', type: 'application/gzip', bytes: gz(dmarcXml('elsewhere.example.org', 'r-2', rows)) },
      { name: 'bomb.xml', type: 'text/xml', bytes: Buffer.from(bomb) },
    ]);
    await mailReport(dmarcAddress, []);
    const after = await waitFor(
      () => api.get(`/domains/${domainId}/dmarc`, as),
      (r) => Object.values(r.body.dropped as Record<string, number>).reduce((a, b) => a + b, 0) === 4,
      60_000,
    );
    expect(after.body).toMatchObject({
      reports: 1,
      messages: 135,
      dropped: { duplicate: 1, wrong_domain: 1, unsafe_xml: 1, no_report: 1 },
    });

    // the duplicate raised nothing again
    expect(
      (await projectEvents(project.projectId)).filter((e) => e.event_type === 'domain.dmarc_failures'),
    ).toHaveLength(1);

    // a TLS report to the TLS address
    await mailReport(`tls+${domainId}@reports.localhost`, [
      { name: `google.com!${name}!1.json.gz`, type: 'application/tlsrpt+gzip', bytes: gz(tlsJson(name, 'tls-1')) },
    ]);
    const tls = await waitFor(
      () => api.get(`/domains/${domainId}/tls-reports`, as),
      (r) => r.body.data?.length === 1,
      60_000,
    );
    expect(tls.body).toMatchObject({
      object: 'list',
      has_more: false,
      dropped: {},
      data: [
        {
          object: 'tls_report',
          organization_name: 'Google Inc.',
          report_id: 'tls-1',
          successful_sessions: 40,
          failed_sessions: 2,
          policies: [
            {
              policy_type: 'sts',
              policy_domain: name,
              failures: [
                { result_type: 'certificate-expired', sending_mta_ip: '203.0.113.9', failed_session_count: 2 },
              ],
            },
          ],
        },
      ],
    });
    expect((await api.get(`/domains/${domainId}/tls-reports?after=${tls.body.data[0].id}`, as)).body.data).toEqual([]);

    // another project sees none of it; bad input is a 422
    const other = await createOtherProject();
    expect((await api.get(`/domains/${domainId}/dmarc`, { key: other.key })).status).toBe(404);
    expect((await api.get(`/domains/${domainId}/tls-reports`, { key: other.key })).status).toBe(404);
    expect((await api.get(`/domains/${domainId}/dmarc?days=0`, as)).status).toBe(422);
    expect((await api.get(`/domains/${domainId}/tls-reports?after=nope`, as)).status).toBe(422);
    await receiver.stop();
  }, 120_000);
});
