// The dashboard: the charge point's state in words (spec 2.13), the running transaction's power, energy, currents
// and duration, the levers on it (views/charge-controls.js), the temperature, the active messages, and a live power
// chart of the running session (uPlot); with energy management, its card (views/energy.js). The page asks GET /v1/system_state every second while it shows the
// dashboard.
import { useEffect, useState } from 'preact/hooks';
import { call, messages, refreshMessages, request, session } from '../api.js';
import { controllerNow } from '../clock.js';
import { t } from '../i18n.js';
import { amps, celsius, dateTime, duration, kW, kWh } from '../format.js';
import { Heading, html } from '../ui.js';
import { ChargeControls } from './charge-controls.js';
import { EnergyCard, recordEnergy } from './energy.js';
import { MessageList } from './messages.js';
import { loadCurve, PowerChart } from './power-chart.js';

const POLL_MS = 1000;
const MESSAGES_EVERY = 5; // polls
/** Points kept for the chart: two hours at one a second. */
const MAX_POINTS = 7200;

/** The messages (errorCode, spec 2.14) that say the temperature is out of its range. */
const TEMPERATURE_CODES = new Set(['OVERTEMPERATURE', 'HIGH_TEMPERATURE']);

/**
 * The running session's power: the controller's curve from its start (a point every 10 s, so a reload shows the
 * whole session), then the samples this page takes every second. Kept while the page lives.
 */
const series = { transactionId: null, times: [], kilowatts: [] };

function record(state) {
  const tx = state.transaction;
  if (!tx) return;
  if (series.transactionId !== tx.transactionId) {
    const id = tx.transactionId;
    Object.assign(series, { transactionId: id, times: [], kilowatts: [] });
    loadCurve(id)
      .then((curve) => {
        if (series.transactionId !== id) return;
        // The curve up to the first sample of this page, then the samples.
        const first = series.times.length ? series.times[0] : Infinity;
        const keep = curve.times.findIndex((s) => s >= first);
        const upTo = keep === -1 ? curve.times.length : keep;
        series.times = [...curve.times.slice(0, upTo), ...series.times];
        series.kilowatts = [...curve.kilowatts.slice(0, upTo), ...series.kilowatts];
      })
      .catch(() => undefined);
  }
  series.times.push(controllerNow() / 1000); // the controller's timeline, as the curve's
  series.kilowatts.push(tx.power / 1000);
  if (series.times.length > MAX_POINTS) {
    series.times.shift();
    series.kilowatts.shift();
  }
}

export function Dashboard() {
  const [state, setState] = useState(null);
  const [error, setError] = useState(false);
  useEffect(() => {
    let stopped = false;
    let timer;
    let n = 0;
    let lastState = null;
    const poll = async () => {
      // While the login dialog is open (the session ended elsewhere) the page waits for the new session.
      if (!session.peek()) {
        timer = setTimeout(poll, POLL_MS);
        return;
      }
      const r = await request('GET', '/v1/system_state').catch(() => null);
      if (stopped) return;
      if (r && r.ok) {
        record(r.json);
        recordEnergy(r.json);
        setState(r.json);
        setError(false);
      } else setError(true);
      // A change of state (a fault, its end) brings its messages at once, so the card leads with what is wrong.
      const changed = r && r.ok && r.json.systemState !== lastState;
      if (changed) lastState = r.json.systemState;
      if (n++ % MESSAGES_EVERY === 0 || changed) refreshMessages().catch(() => undefined);
      timer = setTimeout(poll, POLL_MS);
    };
    poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);

  return html`<${Heading}>${t('nav.dashboard')}<//>
    ${error && html`<p class="note error" role="alert">${t('dashboard.noState')}</p>`}
    ${state ? html`<${StateView} state=${state} />` : html`<p>${t('common.loading')}</p>`} ${state && state.energy && html`<${EnergyCard} state=${state} />`}
    <section class="card" aria-labelledby="dash-messages">
      <h2 id="dash-messages">${t('nav.messages')}</h2>
      <${MessageList} />
    </section>`;
}

/**
 * The status card leads with what is wrong: an active ERROR is its headline with what to do (the state in words
 * moves into the facts), the other messages follow in the card, and a temperature a message names is marked.
 */
/**
 * The whitelist's name of the running transaction's tag (who is charging), looked up once per tag; null: no name, or
 * a session that may not read the whitelist (the id alone is shown then).
 */
function useTagAlias(tagId) {
  const [alias, setAlias] = useState(null);
  useEffect(() => {
    setAlias(null);
    if (!tagId) return undefined;
    let current = true;
    call('GET', '/v1/whitelist?type=local').then(
      (whitelist) => {
        // Tag ids name one tag whatever their letter case (the controller compares them so).
        const entry = whitelist.tags.find((x) => x.name && x.id.toUpperCase() === tagId.toUpperCase());
        if (current) setAlias(entry ? entry.name : null);
      },
      () => {},
    );
    return () => {
      current = false;
    };
  }, [tagId]);
  return alias;
}

function StateView({ state }) {
  const tx = state.transaction;
  const alias = useTagAlias(tx && tx.tagId);
  const currents = tx && tx.OCPPMeterCurrent;
  const phases = currents ? ['L1', 'L2', 'L3'].filter((p) => currents[p] !== undefined) : [];
  const list = messages.value;
  const fault = list.find((m) => m.severity === 'ERROR');
  const others = list.filter((m) => m !== fault);
  const hot = list.some((m) => TEMPERATURE_CODES.has(m.errorCode));
  const stateText = t(`systemState.${state.systemState}`);
  return html`<section class=${`card status status-${state.systemState}${fault ? ' status-fault' : ''}`} aria-labelledby="dash-state">
      <h2 id="dash-state" class="visually-hidden">${t('dashboard.state')}</h2>
      <p class="headline" id="system-state" data-state=${state.systemState} data-fault=${fault ? fault.errorCode : undefined}>
        ${fault ? fault.message : stateText}
      </p>
      ${
        fault &&
        fault.correctiveActions &&
        html`<p class="fault-action" id="fault-action"><strong>${t('messages.action')}</strong> ${fault.correctiveActions}</p>`
      }
      ${
        others.length > 0 &&
        html`<ul class="status-messages" id="status-messages">
          ${others.map(
            (m) =>
              html`<li class=${m.severity === 'ERROR' ? 'error' : 'warning'}>
                <strong>${m.severity === 'ERROR' ? t('messages.error') : t('messages.warning')}</strong> ${m.message}
              </li>`,
          )}
        </ul>`
      }
      <dl class="facts">
        ${
          fault &&
          html`<div>
            <dt>${t('dashboard.state')}</dt>
            <dd id="state-words">${stateText}</dd>
          </div>`
        }
        <div>
          <dt>${t('dashboard.connector')}</dt>
          <dd id="connection-state">${t(`connectionState.${state.connectionState}`)}, ${t('dashboard.cp', { level: state.type2State.toUpperCase() })}</dd>
        </div>
        <div>
          <dt>${t('dashboard.authorization')}</dt>
          <dd id="auth-state">${t(`authState.${state.authState}`)}</dd>
        </div>
        <div>
          <dt>${t('dashboard.ocpp')}</dt>
          <dd id="ocpp-state">${t(`ocppState.${state.ocppState}`)}</dd>
        </div>
        <div>
          <dt>${t('dashboard.temperature')}</dt>
          <dd id="temperature" class=${hot ? 'out-of-range' : undefined}>
            ${state.ambientTemp === undefined ? t('common.unknown') : celsius(state.ambientTemp)}${hot ? ` ${t('dashboard.tooHot')}` : ''}
          </dd>
        </div>
      </dl>
    </section>
    <section class="card" aria-labelledby="dash-session">
      <h2 id="dash-session">${t('dashboard.session')}</h2>
      ${
        tx
          ? html`<dl class="figures">
                <div>
                  <dt>${t('dashboard.power')}</dt>
                  <dd id="power">${kW(tx.power)}</dd>
                </div>
                <div>
                  <dt>${t('dashboard.energy')}</dt>
                  <dd id="energy">${kWh(tx.consumption)}</dd>
                </div>
                <div>
                  <dt>${t('dashboard.duration')}</dt>
                  <dd id="duration">${duration(tx.transactionDuration ?? 0)}</dd>
                </div>
                <div>
                  <dt>${t('dashboard.maxPower')}</dt>
                  <dd>${kW(tx.maxPower)}</dd>
                </div>
                ${phases.map(
                  (p) =>
                    html`<div>
                      <dt>${t('dashboard.current', { phase: p })}</dt>
                      <dd class="current">${currents[p] < 0 ? t('dashboard.noValue') : amps(currents[p])}</dd>
                    </div>`,
                )}
                <div>
                  <dt>${t('dashboard.started')}</dt>
                  <dd>${dateTime(tx.transactionStart)}</dd>
                </div>
                ${
                  tx.tagId &&
                  html`<div>
                    <dt>${t('dashboard.tag')}</dt>
                    <dd id="tag">${alias ? html`${alias} <span class="mono">(${tx.tagId})</span>` : html`<span class="mono">${tx.tagId}</span>`}</dd>
                  </div>`
                }
              </dl>
              <${ChargeControls} transactionId=${tx.transactionId} />
              <${PowerChart}
                id="power-chart"
                chartKey=${tx.transactionId}
                data=${{ times: series.times, kilowatts: series.kilowatts }}
                points=${series.times.length}
                startS=${Date.parse(tx.transactionStart) / 1000}
                label=${t('dashboard.chartLabel', { power: kW(tx.power), points: series.times.length })}
                caption=${t('dashboard.chartCaption')}
              />`
          : html`<p>${t('dashboard.noSession')}</p>`
      }
    </section>`;
}
