// The dashboard's energy card, shown while GET /v1/system_state carries the `energy` extension (docs/energy.md): the
// charging mode (changeable where the role may change the ChargingMode setting), why the current is what it is in
// words, the grid power, solar surplus and today's energy, and a live chart of grid, surplus and charging power.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { lang, t } from '../i18n.js';
import { kW, kWh, number } from '../format.js';
import { fieldsByKey, loadSettings, rawValue, saveSettings } from '../settings-store.js';
import { html } from '../ui.js';
import { usePowerPlot } from './power-plot.js';

/** The setting the mode is stored in (services/energy/settings.ts); the select is offered when the role sees it. */
const MODE_SETTING = 'ChargingMode';
/** The modes as the API names them (EnergyStatus.mode). */
const MODES = ['fast', 'solar', 'minSolar'];
/** Points kept for the chart: two hours at one a second. */
const MAX_POINTS = 7200;

/** Grid, surplus and charging power samples (kW); kept while the page lives, as the session chart's. */
const series = { times: [], grid: [], surplus: [], charging: [] };

/** Records one sample of a system_state answer that carries `energy`. */
export function recordEnergy(state) {
  const energy = state.energy;
  if (!energy) return;
  const grid = energy.inputs.gridPowerW;
  series.times.push(Date.now() / 1000);
  series.grid.push(grid ? (grid[0] + grid[1] + grid[2]) / 1000 : null);
  series.surplus.push(energy.inputs.surplusW === null ? null : energy.inputs.surplusW / 1000);
  series.charging.push(state.transaction ? state.transaction.power / 1000 : 0);
  if (series.times.length > MAX_POINTS) for (const list of Object.values(series)) list.shift();
}

/** The reason in words, built here so it follows the page's language: "Limited to 9 A by solar surplus". */
export function reasonText(energy) {
  const current = `${number(energy.currentA, Number.isInteger(energy.currentA) ? 0 : 1)} A`;
  if (energy.reason === 'ramp') return t('energy.rising', { amps: current });
  const source = t(`energy.source.${energy.reason}`);
  return energy.currentA === 0 ? t('energy.paused', { source }) : t('energy.limited', { amps: current, source });
}

const watts = (w) => (w === null || w === undefined ? t('common.unknown') : kW(w));

export function EnergyCard({ state }) {
  const energy = state.energy;
  const grid = energy.inputs.gridPowerW;
  return html`<section class="card energy" aria-labelledby="dash-energy">
    <h2 id="dash-energy">${t('energy.title')}</h2>
    <p class="headline" id="energy-reason" data-reason=${energy.reason}>${reasonText(energy)}</p>
    <${ModeControl} mode=${energy.mode} />
    <dl class="facts">
      <div>
        <dt>${t('energy.phases')}</dt>
        <dd id="energy-phases">${number(energy.phases)}</dd>
      </div>
      <div>
        <dt>${t('energy.solarState')}</dt>
        <dd id="energy-solar">${t(`energy.solar.${energy.solar}`)}</dd>
      </div>
      <div>
        <dt>${t('energy.gridPower')}</dt>
        <dd id="energy-grid">${watts(grid ? grid[0] + grid[1] + grid[2] : null)}</dd>
      </div>
      <div>
        <dt>${t('energy.surplus')}</dt>
        <dd id="energy-surplus">${watts(energy.inputs.surplusW)}</dd>
      </div>
      <div>
        <dt>${t('energy.todaySolar')}</dt>
        <dd id="energy-today-solar">${kWh(energy.today.solarWh)}</dd>
      </div>
      <div>
        <dt>${t('energy.todayGrid')}</dt>
        <dd id="energy-today-grid">${kWh(energy.today.gridWh)}</dd>
      </div>
    </dl>
    <${EnergyChart} state=${state} points=${series.times.length} />
  </section>`;
}

/**
 * The mode: a select where the role may change the ChargingMode setting (its options and value as GET /v1/settings
 * gives them), else the mode in words. A change is written at once (PATCH /v1/settings); a refusal is shown.
 */
function ModeControl({ mode }) {
  const field = fieldsByKey.value.get(MODE_SETTING);
  const [note, setNote] = useState(null);
  const [busy, setBusy] = useState(false);
  const editable = field && field.mode === 'rw' && field.isNotAuthorized !== 1;
  if (!editable) {
    return html`<p class="energy-mode"><span class="label">${t('energy.mode')}:</span> <strong id="energy-mode">${t(`energy.mode.${mode}`)}</strong></p>`;
  }
  const options = field.type === 'enum' && field.options ? field.options : MODES.map((m) => ({ value: m, label: t(`energy.mode.${m}`) }));
  const change = async (event) => {
    const chosen = options.find((o) => String(o.value) === event.currentTarget.value);
    if (!chosen) return;
    setBusy(true);
    setNote(null);
    try {
      await saveSettings([{ key: MODE_SETTING, value: chosen.value }]);
      setNote({ ok: true, text: t('energy.modeSaved') });
      await loadSettings().catch(() => undefined);
    } catch (err) {
      // The refused pair's own cause where the controller gives one (spec 2.7), else the whole answer's.
      const pair = err instanceof ApiError && err.json && err.json.params && err.json.params[0];
      const cause = pair && pair.cause ? `${t('energy.mode')}: ${pair.cause}` : err.message;
      setNote({ ok: false, text: t('error.refused', { cause }) });
      await loadSettings().catch(() => undefined); // the select shows the stored value again
    } finally {
      setBusy(false);
    }
  };
  return html`<div class="field energy-mode">
    <label for="energy-mode-select">${t('energy.mode')}</label>
    <div class="control">
      <select id="energy-mode-select" aria-describedby="energy-mode-hint energy-mode-note" disabled=${busy} value=${String(rawValue(field))} onChange=${change}>
        ${options.map((o) => html`<option value=${String(o.value)}>${o.label}</option>`)}
      </select>
    </div>
    <p class="hint" id="energy-mode-hint">${t('energy.modeHint')}</p>
    <p id="energy-mode-note" class=${note ? (note.ok ? 'note ok' : 'note error') : 'note empty'} role=${note && !note.ok ? 'alert' : 'status'}>
      ${note ? note.text : ''}
    </p>
  </div>`;
}

/** The series' colours (lines against white: at least 3:1). */
const COLOURS = { grid: '#b3261e', surplus: '#8a5a00', charging: '#0b5394' };

/** The live chart of grid, surplus and charging power (uPlot, as the session chart), redrawn on every sample. */
function EnergyChart({ state, points }) {
  const box = useRef(null);
  const line = (key) => ({
    label: t(key === 'grid' ? 'energy.gridPower' : key === 'surplus' ? 'energy.surplus' : 'energy.charging'),
    stroke: COLOURS[key],
    width: 2,
    points: { show: false },
  });
  const plot = usePowerPlot(
    box,
    {
      scales: {
        x: { time: true, range: (u, min, max) => (max == null ? [Date.now() / 1000 - 30, Date.now() / 1000] : [Math.min(min, max - 30), max]) },
        // Export is negative: the range keeps 0 in sight and both signs.
        y: { range: (u, min, max) => [Math.min(0, (min || 0) * 1.1), Math.max(1, (max || 0) * 1.1)] },
      },
      series: [{}, line('grid'), line('surplus'), line('charging')],
    },
    () => [series.times, series.grid, series.surplus, series.charging],
    [lang.value],
  );
  useEffect(() => {
    if (plot.current) plot.current.setData([series.times, series.grid, series.surplus, series.charging]);
  });
  const grid = state.energy.inputs.gridPowerW;
  const label = t('energy.chartLabel', {
    grid: watts(grid ? grid[0] + grid[1] + grid[2] : null),
    surplus: watts(state.energy.inputs.surplusW),
    charging: kW(state.transaction ? state.transaction.power : 0),
    points,
  });
  return html`<figure class="chart">
    <div ref=${box} role="img" aria-label=${label} id="energy-chart" data-points=${points}></div>
    <figcaption>
      <ul class="legend">
        <li><span class="swatch swatch-grid"></span>${t('energy.gridPower')}</li>
        <li><span class="swatch swatch-surplus"></span>${t('energy.surplus')}</li>
        <li><span class="swatch swatch-charging"></span>${t('energy.charging')}</li>
      </ul>
      ${t('energy.chartCaption')}
    </figcaption>
  </figure>`;
}
