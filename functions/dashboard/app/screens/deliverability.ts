/**
 * A domain's deliverability (issue 40): its compliance checklist with what to fix
 * (GET /domains/{id}/compliance), its DMARC pass rate per day and the sources failing it
 * (GET /domains/{id}/dmarc), and its TLS reports' failures (GET /domains/{id}/tls-reports).
 */
import { Chart } from '../chart';
import { get, seg } from '../api';
import { Badge, Empty, html, Link, loaded, Page, Table, useData } from '../ui';

const RULES: Record<string, string> = {
  spf: 'SPF of the sending domain',
  dkim: 'DKIM signature',
  dmarc: 'DMARC record and policy',
  dmarc_reports: 'DMARC reports to this service',
  alignment: 'From aligned with DKIM and SPF',
  mx: 'MX for receiving',
  one_click_unsubscribe: 'One-click unsubscribe on broadcasts',
  complaint_rate: 'Spam complaint rate, 7 days',
  tls: 'TLS',
};

const dropsText = (dropped: Record<string, number>) =>
  Object.entries(dropped)
    .map(([reason, count]) => `${count} ${reason.replace(/_/g, ' ')}`)
    .join(', ');

export function Deliverability({ id }: { id: string }) {
  const domain = useData(() => get(`/domains/${seg(id)}`), [id]);
  const compliance = useData(() => get(`/domains/${seg(id)}/compliance`), [id]);
  const dmarc = useData(() => get(`/domains/${seg(id)}/dmarc?days=30`), [id]);
  const tls = useData(() => get(`/domains/${seg(id)}/tls-reports?limit=20`), [id]);
  const actions = html`<${Link} to=${`/domains/${id}`}>DNS records<//>`;
  return html`<${Page} title=${`Deliverability${domain.data ? ` of ${domain.data.name}` : ''}`} actions=${actions}
    lead="Whether the domain meets the bulk-sender rules of Gmail and Yahoo, and what mailbox providers report about mail sent as it.">
    <h2>Compliance</h2>
    ${loaded(
      compliance,
      (check) => html`<p class="status-line">Overall <${Badge} value=${check.status} /></p>
      <${Table}
        label="Compliance checklist"
        columns=${['Rule', 'Status', 'Found', 'To fix']}
        rows=${check.rules.map(
          (r: any) => html`<tr><td>${RULES[r.rule] ?? r.rule}</td><td><${Badge} value=${r.status} /></td>
          <td class="wrap">${r.evidence}</td><td class="wrap">${r.fix ?? ''}</td></tr>`,
        )} />`,
    )}
    <h2>DMARC, last 30 days</h2>
    ${loaded(
      dmarc,
      (summary) => html`${
        summary.reports === 0
          ? html`<${Empty} title="No DMARC reports yet">Mailbox providers send them daily once the domain's DMARC record names ${summary.report_address ?? 'a report address'} in rua=.<//>`
          : html`<p>${summary.reports} reports, ${summary.messages} messages, ${summary.pass_rate === null ? '' : `${(summary.pass_rate * 100).toFixed(1)}% passing DMARC`}.</p>
          <${Chart}
            label="Messages passing and failing DMARC per day"
            labels=${summary.days.map((d: any) => d.date)}
            series=${[
              { name: 'Passing', color: 'var(--color-good)', values: summary.days.map((d: any) => d.dmarc_pass) },
              { name: 'Failing', color: 'var(--color-bad)', values: summary.days.map((d: any) => d.dmarc_fail) },
            ]} />
          <h3>Top failing sources</h3>
          <${Table}
            label="Sources failing DMARC"
            columns=${['Source IP', 'Failing', 'Messages', 'Reported by', 'From']}
            empty=${html`<p class="muted">No source failed DMARC.</p>`}
            rows=${summary.top_failing_sources.map(
              (s: any) => html`<tr><td><code>${s.source_ip}</code></td><td>${s.dmarc_fail}</td><td>${s.messages}</td>
              <td>${s.reporters.join(', ')}</td><td>${s.header_from.join(', ')}</td></tr>`,
            )} />`
      }
      ${Object.keys(summary.dropped).length ? html`<p class="muted">Not kept: ${dropsText(summary.dropped)}.</p>` : null}`,
    )}
    <h2>TLS reports</h2>
    ${loaded(
      tls,
      (page) => html`<${Table}
        label="TLS reports"
        columns=${['Reported by', 'Period', 'Successful', 'Failed', 'Failures']}
        empty=${html`<${Empty} title="No TLS reports yet">They come once the domain's TLS-RPT record names its report address.<//>`}
        rows=${page.data.map(
          (
            r: any,
          ) => html`<tr><td>${r.organization_name}</td><td>${r.start.slice(0, 10)}</td><td>${r.successful_sessions}</td>
          <td>${r.failed_sessions}</td>
          <td class="wrap">${r.policies.flatMap((p: any) => p.failures.map((f: any) => `${f.result_type} (${f.failed_session_count})`)).join(', ')}</td></tr>`,
        )} />
      ${Object.keys(page.dropped).length ? html`<p class="muted">Not kept: ${dropsText(page.dropped)}.</p>` : null}`,
    )}
  <//>`;
}
