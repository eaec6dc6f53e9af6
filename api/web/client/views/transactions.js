// Completed transactions (spec 4.3): a date range of the controller's days, the summary, the list, and a billing CSV
// made in the page from the same list (times in the controller's time zone with their offset).
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { t } from '../i18n.js';
import { dateTime, displayZone, duration, isoLocal, kW, kWh, toCsv, zonedMs } from '../format.js';
import { Cell, Heading, html, Note, refusal } from '../ui.js';
import { EnergyHistory } from './energy-history.js';
import { loadCurve, PowerChart } from './power-chart.js';

/** A calendar day's start or end in the controller's time zone as the API's UTC date-time (`…T…Z`). */
function dayBound(value, end) {
  const [y, m, d] = value.split('-').map(Number);
  return new Date(end ? zonedMs(y, m, d, 23, 59, 59, 999) : zonedMs(y, m, d)).toISOString();
}

/** The CSV's name: the period asked for, else the days of the first and last transaction listed. */
function csvName(range, list) {
  const day = (iso) => isoLocal(Date.parse(iso)).slice(0, 10);
  const from = range.from || (list.length ? day(list[0].startTransaction) : '');
  const to = range.to || (list.length ? day(list[list.length - 1].startTransaction) : '');
  return `transactions-${from || 'all'}-to-${to || 'all'}.csv`;
}

export function Transactions() {
  const [range, setRange] = useState({ from: '', to: '' });
  const [result, setResult] = useState(null); // {list, summary, users}
  const [note, setNote] = useState(null);
  const [curve, setCurve] = useState(null); // {tx, data} of the transaction whose curve is shown

  async function showCurve(tx) {
    try {
      setCurve({ tx, data: await loadCurve(tx.transactionId) });
    } catch (err) {
      setNote({ kind: 'error', text: refusal(err) });
    }
  }

  async function load(r) {
    if (r.from && r.to && r.from > r.to) {
      // The list of the previous range would read as this one's: none is shown.
      setResult(null);
      setNote({ kind: 'error', text: t('transactions.reversed') });
      return;
    }
    const query = new URLSearchParams();
    if (r.from) query.set('from', dayBound(r.from, false));
    if (r.to) query.set('to', dayBound(r.to, true));
    const q = query.toString() ? `?${query}` : '';
    try {
      const [list, summary, people, whitelist] = await Promise.all([
        call('GET', `/v1/transactions${q}`),
        call('GET', `/v1/transactions/summary${q}`),
        call('GET', '/v1/users'),
        call('GET', '/v1/whitelist?type=local'),
      ]);
      setResult({
        list,
        summary,
        users: new Map(people.users.map((u) => [u.userId, u.userName])),
        // Tag ids name one tag whatever their letter case (the controller compares them so).
        aliases: new Map(whitelist.tags.filter((x) => x.name).map((x) => [x.id.toUpperCase(), x.name])),
      });
      setNote(null);
    } catch (err) {
      setNote({ kind: 'error', text: refusal(err) });
    }
  }
  useEffect(() => {
    load(range);
  }, []);

  function download() {
    const rows = [
      [
        'transactionId',
        'startTransaction',
        'endTransaction',
        'timeZone',
        'durationSeconds',
        'meterStartWh',
        'meterStopWh',
        'consumptionWh',
        'maxPowerW',
        'stopReason',
        'tagId',
        'tagAlias',
        'userId',
        'userName',
      ],
    ];
    for (const x of result.list) {
      const seconds = Math.round((Date.parse(x.endTransaction) - Date.parse(x.startTransaction)) / 1000);
      rows.push([
        x.transactionId,
        isoLocal(Date.parse(x.startTransaction)),
        isoLocal(Date.parse(x.endTransaction)),
        displayZone.value ?? '',
        seconds,
        x.meterStartWh,
        x.meterStopWh,
        x.consumption,
        x.maxPower,
        x.stopReason ?? '',
        x.tagId ?? '',
        (x.tagId && result.aliases.get(x.tagId.toUpperCase())) ?? '',
        x.userId ?? '',
        result.users.get(x.userId) ?? '',
      ]);
    }
    const url = URL.createObjectURL(new Blob([toCsv(rows)], { type: 'text/csv;charset=utf-8' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = csvName(range, result.list);
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  const labels = {
    start: t('transactions.start'),
    end: t('transactions.end'),
    duration: t('transactions.duration'),
    energy: t('transactions.energy'),
    maxPower: t('transactions.maxPower'),
    tag: t('transactions.tag'),
    user: t('transactions.user'),
    actions: t('common.actions'),
  };
  return html`<${Heading}>${t('nav.transactions')}<//>
    <${EnergyHistory} />
    <form
      class="card range"
      onSubmit=${(e) => {
        e.preventDefault();
        load(range);
      }}
      novalidate
      aria-labelledby="range-heading"
    >
      <h2 id="range-heading">${t('transactions.range')}</h2>
      <div class="row">
        <div class="field">
          <label for="tx-from">${t('transactions.from')}</label
          ><input id="tx-from" type="date" value=${range.from} onInput=${(e) => setRange({ ...range, from: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="tx-to">${t('transactions.to')}</label
          ><input id="tx-to" type="date" value=${range.to} onInput=${(e) => setRange({ ...range, to: e.currentTarget.value })} />
        </div>
      </div>
      <p class="hint">${t('transactions.rangeHint')}</p>
      <div class="actions"><button type="submit" class="primary">${t('transactions.show')}</button></div>
    </form>
    <${Note} note=${note} id="transactions-note" />
    ${
      result &&
      html`<section class="card" aria-labelledby="tx-summary">
          <h2 id="tx-summary">${t('transactions.summary')}</h2>
          <dl class="figures" id="summary">
            <div>
              <dt>${t('transactions.count')}</dt>
              <dd id="tx-count">${result.summary.transactionCount}</dd>
            </div>
            <div>
              <dt>${t('transactions.totalDuration')}</dt>
              <dd>${duration(result.summary.totalDuration)}</dd>
            </div>
            <div>
              <dt>${t('transactions.totalEnergy')}</dt>
              <dd id="tx-energy">${kWh(result.summary.totalConsumption)}</dd>
            </div>
          </dl>
          <div class="actions"><button type="button" onClick=${download} disabled=${result.list.length === 0} id="csv">${t('transactions.csv')}</button></div>
        </section>
        <section class="card" aria-labelledby="tx-list">
          <h2 id="tx-list">${t('transactions.list')}</h2>
          ${
            result.list.length === 0
              ? html`<p>${t('transactions.empty')}</p>`
              : html`<table class="responsive" id="transactions">
                  <thead>
                    <tr>
                      ${Object.values(labels).map((l) => html`<th scope="col">${l}</th>`)}
                    </tr>
                  </thead>
                  <tbody>
                    ${result.list.map(
                      (x) =>
                        html`<tr>
                          <${Cell} label=${labels.start} cls="nowrap">${dateTime(x.startTransaction)}<//>
                          <${Cell} label=${labels.end} cls="nowrap">${dateTime(x.endTransaction)}<//>
                          <${Cell} label=${labels.duration} cls="nowrap">${duration((Date.parse(x.endTransaction) - Date.parse(x.startTransaction)) / 1000)}<//>
                          <${Cell} label=${labels.energy} cls="nowrap">${kWh(x.consumption)}<//>
                          <${Cell} label=${labels.maxPower} cls="nowrap">${kW(x.maxPower)}<//>
                          <${Cell} label=${labels.tag} cls="mono nowrap">${x.tagId ?? ''}<//>
                          <${Cell} label=${labels.user}>${(x.userId && result.users.get(x.userId)) || ''}<//>
                          <${Cell} label=${labels.actions} cls="row-actions">
                            <button
                              type="button"
                              aria-label=${t('transactions.curveOf', { start: dateTime(x.startTransaction) })}
                              aria-pressed=${curve && curve.tx.transactionId === x.transactionId ? 'true' : 'false'}
                              onClick=${() => showCurve(x)}
                            >
                              ${t('transactions.curve')}
                            </button>
                          <//>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
          }
        </section>
        ${curve && html`<${CurveCard} curve=${curve} />`}`
    }`;
}

/** A past transaction's power over time, from the controller's curve. */
function CurveCard({ curve }) {
  const { tx, data } = curve;
  const start = dateTime(tx.startTransaction);
  const highest = data.kilowatts.reduce((m, v) => Math.max(m, v), 0);
  return html`<section class="card" aria-labelledby="tx-curve" id="curve">
    <h2 id="tx-curve">${t('transactions.curveOf', { start })}</h2>
    ${
      data.times.length === 0
        ? html`<p id="curve-empty">${t('transactions.curveEmpty')}</p>`
        : html`<${PowerChart}
            id="curve-chart"
            chartKey=${tx.transactionId}
            data=${data}
            points=${data.times.length}
            startS=${Date.parse(tx.startTransaction) / 1000}
            label=${t('transactions.curveLabel', { start, points: data.times.length, max: kW(highest * 1000) })}
            caption=${t('transactions.curveCaption')}
          />`
    }
  </section>`;
}
