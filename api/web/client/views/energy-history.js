// Energy by day or month (extension GET /v1/energy/history): a bar chart of the energy charged per period of the
// controller's time zone, the range's total, the lifetime energy, and where energy management counted it, the
// share from the sun and from the grid.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.js';
import { lang, t } from '../i18n.js';
import { kWh, number } from '../format.js';
import { html, Note, refusal } from '../ui.js';

/** A period's label: `2026-11-28` → `28.11.`, `2026-11` → `Nov 2026`, in the page's language (UTC: a calendar name). */
function periodLabel(period, by) {
  const [y, m, d] = period.split('-').map(Number);
  const options = by === 'day' ? { day: 'numeric', month: 'numeric', timeZone: 'UTC' } : { month: 'short', year: 'numeric', timeZone: 'UTC' };
  return new Intl.DateTimeFormat(document.documentElement.lang, options).format(new Date(Date.UTC(y, m - 1, d || 1)));
}

export function EnergyHistory() {
  const [by, setBy] = useState('day');
  const [history, setHistory] = useState(null);
  const [note, setNote] = useState(null);
  useEffect(() => {
    call('GET', `/v1/energy/history?by=${by}`)
      .then((h) => {
        setHistory(h);
        setNote(null);
      })
      .catch((err) => setNote({ kind: 'error', text: refusal(err) }));
  }, [by]);

  const counted = history ? history.periods.filter((p) => p.solarWh !== null || p.gridWh !== null) : [];
  const solarWh = counted.reduce((n, p) => n + (p.solarWh ?? 0), 0);
  const gridWh = counted.reduce((n, p) => n + (p.gridWh ?? 0), 0);
  const share = (wh) => `${number((100 * wh) / (solarWh + gridWh || 1), 0)} %`;
  return html`<section class="card" aria-labelledby="history-heading" id="energy-history">
    <h2 id="history-heading">${t('history.heading')}</h2>
    <div class="field">
      <label for="history-by">${t('history.by')}</label>
      <select id="history-by" value=${by} onChange=${(e) => setBy(e.currentTarget.value)}>
        <option value="day">${t('history.byDay')}</option>
        <option value="month">${t('history.byMonth')}</option>
      </select>
    </div>
    <${Note} note=${note} id="history-note" />
    ${
      history &&
      html`<dl class="figures">
          <div>
            <dt>${t('history.total')}</dt>
            <dd id="history-total">${kWh(history.consumptionWh)}</dd>
          </div>
          <div>
            <dt>${t('history.lifetime')}</dt>
            <dd id="history-lifetime">${kWh(history.lifetimeWh)}</dd>
          </div>
          ${
            counted.length > 0 &&
            html`<div>
                <dt>${t('history.solar')}</dt>
                <dd id="history-solar">${kWh(solarWh)} (${share(solarWh)})</dd>
              </div>
              <div>
                <dt>${t('history.grid')}</dt>
                <dd id="history-grid">${kWh(gridWh)} (${share(gridWh)})</dd>
              </div>`
          }
        </dl>
        <${HistoryChart} history=${history} />`
    }
  </section>`;
}

/** Bars of the energy charged per period (uPlot), with the part from the sun where it was counted. */
function HistoryChart({ history }) {
  const box = useRef(null);
  const withSolar = history.periods.some((p) => p.solarWh !== null);
  useEffect(() => {
    const uPlot = window.uPlot;
    if (!uPlot || !box.current) return undefined;
    const element = box.current;
    const width = () => Math.max(200, element.clientWidth);
    const labels = history.periods.map((p) => periodLabel(p.period, history.by));
    const bars = (size) => uPlot.paths.bars({ size: [size, 40] });
    const data = [history.periods.map((p, i) => i), history.periods.map((p) => p.consumptionWh / 1000)];
    const series = [{}, { stroke: '#0b5394', fill: 'rgba(11, 83, 148, 0.55)', paths: bars(0.7), points: { show: false } }];
    if (withSolar) {
      data.push(history.periods.map((p) => (p.solarWh ?? 0) / 1000));
      series.push({ stroke: '#8a6d00', fill: 'rgba(230, 180, 0, 0.85)', paths: bars(0.35), points: { show: false } });
    }
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: false, range: () => [-0.5, history.periods.length - 0.5] }, y: { range: (u, min, max) => [0, Math.max(1, (max || 0) * 1.1)] } },
        axes: [
          { stroke: '#37474f', grid: { show: false }, values: (u, ticks) => ticks.map((i) => (Number.isInteger(i) ? labels[i] || '' : '')) },
          { stroke: '#37474f', grid: { stroke: '#eceff1' }, values: (u, ticks) => ticks.map((v) => `${v} kWh`), size: 72 },
        ],
        series,
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [history, lang.value]);
  const first = history.periods[0];
  const last = history.periods[history.periods.length - 1];
  return html`<figure class="chart">
    <div
      ref=${box}
      role="img"
      id="history-chart"
      data-periods=${history.periods.length}
      aria-label=${t('history.chartLabel', {
        from: periodLabel(first.period, history.by),
        to: periodLabel(last.period, history.by),
        total: kWh(history.consumptionWh),
      })}
    ></div>
    <figcaption>${withSolar ? t('history.captionSolar') : t('history.caption')}</figcaption>
  </figure>`;
}
