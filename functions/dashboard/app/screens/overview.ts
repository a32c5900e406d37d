import { get, qs } from '../api';
import { Chart, type Series } from '../chart';
import { Badge, ErrorBox, html, Loading, Page, useData } from '../ui';

const SERIES: [string, string, string][] = [
  ['sent', 'Sent', '#1d4ed8'],
  ['delivered', 'Delivered', '#15803d'],
  ['bounced', 'Bounced', '#b91c1c'],
  ['complained', 'Complained', '#9333ea'],
  ['opened', 'Opened', '#0f766e'],
  ['clicked', 'Clicked', '#b45309'],
];

const percent = (rate: number | undefined) => `${((rate ?? 0) * 100).toFixed(2)} %`;

/** The last 30 days per day (GET /emails/metrics), the project's reputation and sending status (GET /project). */
export function Overview() {
  const { data, error, loading } = useData(async () => {
    const end = new Date();
    const start = new Date(end.getTime() - 29 * 86_400_000);
    const [metrics, project] = await Promise.all([
      get(`/emails/metrics${qs({ start_date: start.toISOString().slice(0, 10), end_date: end.toISOString(), granularity: 'daily', dimensions: 'period' })}`),
      get('/project'),
    ]);
    return { metrics, project };
  });
  if (loading && !data) return html`<${Page} title="Overview"><${Loading} /><//>`;
  if (error || !data) return html`<${Page} title="Overview"><${ErrorBox} error=${error} /><//>`;
  const rows: any[] = data.metrics.data ?? [];
  const series: Series[] = SERIES.map(([key, name, color]) => ({ name, color, values: rows.map((r) => Number(r[key] ?? 0)) }));
  const { project } = data;
  return html`<${Page} title="Overview">
    <div class="cards">
      <div class="card"><h2>Sending</h2><${Badge} value=${project.sending.status} />${project.sending.reason ? html`<p>${project.sending.reason}</p>` : null}</div>
      <div class="card"><h2>Bounce rate (24 h)</h2><p class="big">${percent(project.reputation.bounce_rate)}</p></div>
      <div class="card"><h2>Complaint rate (24 h)</h2><p class="big">${percent(project.reputation.complaint_rate)}</p></div>
      <div class="card"><h2>Sent today</h2><p class="big">${project.usage.daily}</p></div>
    </div>
    <h2>Last 30 days</h2>
    <${Chart} labels=${rows.map((r) => String(r.period))} series=${series} />
    <p class="muted">30-day bounce rate ${percent(data.metrics.totals?.bounce_rate)}, complaint rate ${percent(data.metrics.totals?.complaint_rate)}.</p>
  <//>`;
}
