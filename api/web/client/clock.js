// The controller's time (extension GET /v1/time): its clock, time zone and source. The zone is the one every time
// on the page is shown in (format.js); it is read after login and again when the TimeZone setting changes.
import { effect, signal } from '@preact/signals';
import { useEffect, useState } from 'preact/hooks';
import { call, session } from './api.js';
import { displayZone, dateTime } from './format.js';
import { t } from './i18n.js';
import { fieldsByKey } from './settings-store.js';
import { html } from './ui.js';

/** GET /v1/time's answer with the moment it arrived (performance.now()), or null. */
export const controllerTime = signal(null);

/** The controller's clock now (epoch ms): its last answer plus the time since; the browser's before the first. */
export function controllerNow() {
  const c = controllerTime.peek();
  return c ? Date.parse(c.time) + (performance.now() - c.receivedAt) : Date.now();
}

export async function refreshTime() {
  const answer = await call('GET', '/v1/time');
  controllerTime.value = { ...answer, receivedAt: performance.now() };
  displayZone.value = answer.timeZone;
}

// After login, and when the TimeZone setting's value changes (a Save reloads the settings).
let seen;
effect(() => {
  const field = fieldsByKey.value.get('TimeZone');
  const key = `${session.value ? session.value.id : ''} ${field ? field.value : ''}`;
  if (!session.value || key === seen) return;
  seen = key;
  refreshTime().catch(() => undefined);
});
effect(() => {
  if (!session.value) {
    controllerTime.value = null;
    seen = undefined;
  }
});

/** The controller's time, ticking every second from its last answer, with the zone, offset and source. */
export function ControllerClock() {
  const [, tick] = useState(0);
  useEffect(() => {
    refreshTime().catch(() => undefined);
    const timer = setInterval(() => tick((n) => n + 1), 1000);
    // The clock's own source may change (NTP, the central system): asked again every minute.
    const again = setInterval(() => refreshTime().catch(() => undefined), 60_000);
    return () => {
      clearInterval(timer);
      clearInterval(again);
    };
  }, []);
  const c = controllerTime.value;
  if (!c) return html`<p>${t('common.loading')}</p>`;
  const now = controllerNow();
  const source =
    c.source === 'ocpp'
      ? t('clock.source.ocpp', { time: dateTime(c.centralSetAt) })
      : c.ntpSynchronized === true
        ? t('clock.source.ntp')
        : c.ntpSynchronized === false
          ? t('clock.source.notSynchronized')
          : t('clock.source.unknown');
  return html`<dl class="facts" id="controller-clock">
    <div>
      <dt>${t('clock.time')}</dt>
      <dd id="clock-time" class="nowrap">${dateTime(now)}</dd>
    </div>
    <div>
      <dt>${t('clock.zone')}</dt>
      <dd id="clock-zone">${c.timeZone} (UTC${c.offset})</dd>
    </div>
    <div>
      <dt>${t('clock.source')}</dt>
      <dd id="clock-source">${source}</dd>
    </div>
  </dl>`;
}
