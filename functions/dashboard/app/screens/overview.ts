/**
 * The overview: the project's sending status, today's and the last 30 days' mail, and the
 * reputation guard's rates.
 *
 * One source for the mail: "Sent today", the cards and the chart are all GET /emails/metrics (live
 * mail counted per UTC day as the sender and SES report it). GET /project's `usage` is the quota's
 * count of emails *accepted*, which includes mail not sent yet and mail to suppressed addresses, so
 * beside the chart it read "Sent today 10" over a line at 8. The reputation cards are the guard's
 * own window (GET /project's `reputation`: the last 24 hours, permanent bounces and complaints per
 * email sent), coloured against the guard's thresholds: past one the guard pauses sending (from
 * `minSends` in the window), from half of one the rate is a warning.
 */
import { get, qs } from '../api';
import { Chart, type Series } from '../chart';
import { guardThresholds } from '../../../../shared/emails/reputation-thresholds';
import { Badge, html, loaded, Page, useData } from '../ui';

const SERIES: [string, string, string][] = [
  ['sent', 'Sent', '#4338ca'],
  ['delivered', 'Delivered', '#15803d'],
  ['bounced', 'Bounced', '#b91c1c'],
  ['complained', 'Complained', '#9333ea'],
  ['opened', 'Opened', '#0f766e'],
  ['clicked', 'Clicked', '#b45309'],
];

/**
 * The deployment's defaults (the stack may set others from CDK context; GET /project does not say
 * which, so a deployment that changes them colours against these).
 */
const THRESHOLDS = guardThresholds({});

const percent = (rate: number | undefined) => `${((rate ?? 0) * 100).toFixed(2)} %`;

/** A rate against the guard's limit, in a colour and in words (colour alone tells a colour-blind reader nothing). */
export function rateTone(rate: number, limit: number): { tone: 'good' | 'warn' | 'bad'; words: string } {
  if (rate >= limit) return { tone: 'bad', words: 'over the limit' };
  if (rate >= limit / 2) return { tone: 'warn', words: 'near the limit' };
  return { tone: 'good', words: 'within the limit' };
}

const RateCard = ({ title, rate, limit, testId }: { title: string; rate: number; limit: number; testId: string }) => {
  const { tone, words } = rateTone(rate, limit);
  return html`<div class="card stat"><h2>${title}</h2><p class=${`big ${tone}`} data-testid=${testId} data-tone=${tone}>${percent(rate)}</p>
    <p class="muted">${words}: the guard pauses sending at ${percent(limit)}</p></div>`;
};

export function Overview() {
  const state = useData(async () => {
    const end = new Date();
    const start = new Date(end.getTime() - 29 * 86_400_000);
    const [metrics, project] = await Promise.all([
      get(
        `/emails/metrics${qs({ start_date: start.toISOString().slice(0, 10), end_date: end.toISOString(), granularity: 'daily', dimensions: 'period' })}`,
      ),
      get('/project'),
    ]);
    return { metrics, project, today: end.toISOString().slice(0, 10) };
  });
  return html`<${Page} title="Overview" lead="Live mail of this project: today, the last 30 days (UTC days) and the reputation guard's last 24 hours. Test-mode mail is not counted.">
    ${loaded(state, ({ metrics, project, today }) => {
      const rows: any[] = metrics.data ?? [];
      const series: Series[] = SERIES.map(([key, name, color]) => ({
        name,
        color,
        values: rows.map((r) => Number(r[key] ?? 0)),
      }));
      const todays = rows.find((r) => String(r.period) === today) ?? {};
      const { reputation, sending } = project;
      return html`<div class="cards">
          <div class="card stat"><h2>Sending</h2><p><${Badge} value=${sending.status} /></p>${sending.reason ? html`<p>${sending.reason}</p>` : html`<p class="muted">Emails are accepted and sent.</p>`}</div>
          <div class="card stat"><h2>Sent today</h2><p class="big" data-testid="sent-today">${Number(todays.sent ?? 0)}</p><p class="muted">${Number(todays.delivered ?? 0)} delivered · ${Number(todays.bounced ?? 0)} bounced</p></div>
          <${RateCard} title="Bounce rate (24 h)" rate=${reputation.bounce_rate} limit=${THRESHOLDS.bounceRate} testId="bounce-rate" />
          <${RateCard} title="Complaint rate (24 h)" rate=${reputation.complaint_rate} limit=${THRESHOLDS.complaintRate} testId="complaint-rate" />
        </div>
        <h2>Last 30 days</h2>
        <${Chart} labels=${rows.map((r) => String(r.period))} series=${series} />
        <p class="muted">${Number(metrics.totals?.sent ?? 0)} sent in 30 days: bounce rate ${percent(metrics.totals?.bounce_rate)}, complaint rate ${percent(metrics.totals?.complaint_rate)} (of those delivered).</p>`;
    })}
  <//>`;
}
