// The dashboard's levers on the running charge (extension /v1/charge, docs/api-overview.md): pause or resume, stop
// (asked first), and the charging current as a slider from 6 A to the MaxCurrent setting. The slider at its top frees
// the current (null: only the other limits apply). A session that may not act on this charge (role user, not its
// tag's user) sees why instead. The controller's state is read when the transaction changes, every few seconds and
// after each action; a refusal is shown in words below the controls.
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { amps } from '../format.js';
import { t } from '../i18n.js';
import { ConfirmButton, html, Note, refusal } from '../ui.js';

const REFRESH_MS = 5000;

export function ChargeControls({ transactionId }) {
  const [charge, setCharge] = useState(null);
  const [note, setNote] = useState(null);
  // The slider's position while it is moved (before it is let go), so the label follows the hand.
  const [moving, setMoving] = useState(null);
  const [busy, setBusy] = useState(false);

  const load = () =>
    call('GET', '/v1/charge')
      .then(setCharge)
      .catch(() => undefined);
  useEffect(() => {
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, [transactionId]);

  if (!charge || !charge.running) return null;
  if (!charge.mayControl) return html`<p class="note" id="charge-not-yours">${t('charge.notYours')}</p>`;

  const act = async (path, body, done) => {
    setBusy(true);
    try {
      await call('POST', path, body);
      setNote({ kind: 'ok', text: done });
    } catch (err) {
      setNote({ kind: 'error', text: refusal(err) });
    } finally {
      setBusy(false);
      setMoving(null);
      await load();
    }
  };
  const chosen = moving ?? charge.currentA ?? charge.maxA;
  const setCurrent = (value) => act('/v1/charge/current', { currentA: value >= charge.maxA ? null : value }, t('charge.currentSet', { amps: amps(value) }));

  return html`<div class="charge-controls" role="group" aria-labelledby="charge-heading">
    <h3 id="charge-heading">${t('charge.heading')}</h3>
    ${charge.paused && html`<p class="note info" id="charge-paused">${t('charge.pausedNote')}</p>`}
    <div class="charge-buttons">
      ${
        charge.paused
          ? html`<button type="button" id="charge-resume" disabled=${busy} onClick=${() => act('/v1/charge/resume', undefined, t('charge.resumed'))}>
              ${t('charge.resume')}
            </button>`
          : html`<button type="button" id="charge-pause" disabled=${busy} onClick=${() => act('/v1/charge/pause', undefined, t('charge.pausedDone'))}>
              ${t('charge.pause')}
            </button>`
      }
      <${ConfirmButton}
        label=${t('charge.stop')}
        question=${t('charge.stopQuestion')}
        disabled=${busy}
        onConfirm=${() => act('/v1/charge/stop', undefined, t('charge.stopped'))}
      />
    </div>
    <div class="charge-current">
      <label for="charge-current">${t('charge.current')}</label>
      <input
        type="range"
        id="charge-current"
        min=${charge.minA}
        max=${charge.maxA}
        step="1"
        value=${chosen}
        aria-describedby="charge-current-hint"
        aria-valuetext=${amps(chosen)}
        onInput=${(e) => setMoving(Number(e.currentTarget.value))}
        onChange=${(e) => setCurrent(Number(e.currentTarget.value))}
      />
      <output for="charge-current" id="charge-current-value">${amps(chosen)}</output>
      <p class="hint" id="charge-current-hint">${t('charge.currentHint', { min: amps(charge.minA), max: amps(charge.maxA) })}</p>
    </div>
    <${Note} note=${note} id="charge-note" />
  </div>`;
}
