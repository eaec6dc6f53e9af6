// A session's power over time (uPlot on a canvas, loaded by the page as a classic script), and the controller's
// energy curve of a transaction (extension GET /v1/transactions/{id}/curve) as its data. Used by the dashboard for
// the running session and by the transactions view for a past one.
import { useEffect, useRef } from 'preact/hooks';
import { call } from '../api.js';
import { lang } from '../i18n.js';
import { displayZone } from '../format.js';
import { html } from '../ui.js';
import { usePowerPlot } from './power-plot.js';

/** A transaction's curve as chart columns: times (s) and kW (the first point has no power: 0). */
export async function loadCurve(transactionId) {
  const curve = await call('GET', `/v1/transactions/${encodeURIComponent(transactionId)}/curve`);
  return { times: curve.points.map((p) => Date.parse(p.at) / 1000), kilowatts: curve.points.map((p) => (p.powerW ?? 0) / 1000) };
}

/**
 * The chart of `data` ({times, kilowatts}, redrawn when `points` changes); the x axis starts at `startS` (the
 * transaction's start, in s) and spans at least 30 s. `id`, `label` (its text alternative) and `caption` name it.
 */
export function PowerChart({ id, data, points, startS, label, caption, chartKey }) {
  const box = useRef(null);
  const plot = usePowerPlot(
    box,
    {
      scales: {
        // From the transaction's start, at least 30 s wide, so the first samples do not fill the width.
        x: {
          time: true,
          range: (u, min, max) => {
            const from = startS ?? min ?? Date.now() / 1000 - 30;
            return [from, Math.max(from + 30, max ?? from)];
          },
        },
        y: { range: (u, min, max) => [0, Math.max(1, (max || 0) * 1.1)] },
      },
      series: [{}, { stroke: '#0b5394', width: 2, fill: 'rgba(11, 83, 148, 0.12)', points: { show: false } }],
    },
    () => [data.times, data.kilowatts],
    [chartKey, startS, lang.value, displayZone.value],
  );
  useEffect(() => {
    if (plot.current) plot.current.setData([data.times, data.kilowatts]);
  }, [points, data]);
  return html`<figure class="chart">
    <div
      ref=${box}
      role="img"
      aria-label=${label}
      id=${id}
      data-points=${points}
      data-first=${data.times.length ? new Date(data.times[0] * 1000).toISOString() : undefined}
    ></div>
    <figcaption>${caption}</figcaption>
  </figure>`;
}
