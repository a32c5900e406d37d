/** The overview's chart: SVG drawn by Preact (values escaped as everywhere in ./ui.ts), no chart library. */
import { html } from 'htm/preact';

export interface Series {
  name: string;
  color: string;
  values: number[];
}

/** A line chart drawn as SVG: one line per series over `labels` (days), with its legend and a data table for screen readers. */
export function Chart({
  labels,
  series,
  label = 'Emails per day, last 30 days',
}: {
  labels: string[];
  series: Series[];
  label?: string;
}) {
  const width = 720;
  const height = 220;
  const pad = { left: 40, right: 10, top: 10, bottom: 24 };
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const x = (i: number) =>
    pad.left + (labels.length <= 1 ? 0 : (i * (width - pad.left - pad.right)) / (labels.length - 1));
  const y = (v: number) => height - pad.bottom - (v / max) * (height - pad.top - pad.bottom);
  const ticks = [0, Math.round(max / 2), max];
  return html`<figure class="chart">
    <svg viewBox=${`0 0 ${width} ${height}`} role="img" aria-label=${label}>
      ${ticks.map((t) => html`<g><line x1=${pad.left} x2=${width - pad.right} y1=${y(t)} y2=${y(t)} class="grid" /><text x=${pad.left - 6} y=${y(t) + 4} text-anchor="end">${t}</text></g>`)}
      ${labels.map((label, i) => (i % 5 === 0 ? html`<text x=${x(i)} y=${height - 6} text-anchor="middle">${label.slice(5)}</text>` : null))}
      ${series.map((s) => html`<polyline fill="none" stroke=${s.color} stroke-width="2" points=${s.values.map((v, i) => `${x(i)},${y(v)}`).join(' ')} />`)}
    </svg>
    <figcaption class="legend">${series.map((s) => html`<span><i style=${{ background: s.color }}></i>${s.name} ${s.values.reduce((a, b) => a + b, 0)}</span>`)}</figcaption>
  </figure>`;
}
