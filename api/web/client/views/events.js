// The event log (extension GET /v1/events, role operator and higher): what happened, newest first, filtered by what
// it is about, with a live tail that asks for the events since the newest one shown every few seconds.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, session } from '../api.js';
import { t } from '../i18n.js';
import { dateTime } from '../format.js';
import { Cell, Heading, html, Note, refusal } from '../ui.js';

const TAIL_MS = 3000;
/** Rows shown at most (the log keeps up to 100,000; a phone should not draw them all). */
const SHOWN = 500;
const HOUR_MS = 3600_000;
/** The periods offered, in hours back from now (0: the whole log). */
export const PERIODS = [1, 24, 24 * 7, 24 * 30, 0];

/** What an event is about, by its kind (docs/events.md); a kind not named here is "other". */
const TOPICS = {
  faults: ['fault_raised', 'fault_cleared', 'storage_full', 'storage_writable'],
  sessions: ['tag_accepted', 'tag_refused', 'tag_ignored', 'transaction_started', 'transaction_stopped', 'charge_control'],
  settings: ['settings_changed', 'backup_restored', 'factory_reset', 'restart'],
  logins: [
    'login',
    'logout',
    'login_refused',
    'login_throttled',
    'session_ended',
    'account_created',
    'account_role_changed',
    'account_password_reset',
    'account_removed',
  ],
};
export const TOPIC_KEYS = [...Object.keys(TOPICS), 'other'];
export const topicOf = (kind) => Object.keys(TOPICS).find((k) => TOPICS[k].includes(kind)) || 'other';

export function Events() {
  const [hours, setHours] = useState(24);
  const [shown, setShown] = useState(() => new Set(TOPIC_KEYS));
  const [live, setLive] = useState(true);
  const [events, setEvents] = useState(null); // oldest first, as the API answers
  const [note, setNote] = useState(null);
  const newest = useRef(null); // {id, at} of the newest event loaded

  async function load(h) {
    const query = h ? `?from=${new Date(Date.now() - h * HOUR_MS).toISOString()}` : '';
    try {
      const answer = await call('GET', `/v1/events${query}`);
      setEvents(answer.events);
      newest.current = answer.events[answer.events.length - 1] || null;
      setNote(null);
    } catch (err) {
      setNote({ kind: 'error', text: refusal(err) });
    }
  }
  useEffect(() => {
    load(hours);
  }, [hours]);

  // The live tail: the events from the newest one's time on (inclusive, so those after it by id are new).
  useEffect(() => {
    if (!live) return undefined;
    let stopped = false;
    let timer;
    const tail = async () => {
      if (session.peek() && events !== null) {
        const from = newest.current ? newest.current.at : new Date(Date.now() - TAIL_MS).toISOString();
        const after = newest.current ? newest.current.id : -1;
        const answer = await call('GET', `/v1/events?from=${from}`).catch(() => null);
        if (stopped) return;
        const fresh = answer ? answer.events.filter((e) => e.id > after) : [];
        if (fresh.length > 0) {
          newest.current = fresh[fresh.length - 1];
          setEvents((before) => [...(before || []), ...fresh]);
        }
      }
      if (!stopped) timer = setTimeout(tail, TAIL_MS);
    };
    timer = setTimeout(tail, TAIL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [live, events === null]);

  const toggle = (key) => {
    const next = new Set(shown);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    setShown(next);
  };
  const matching = (events || []).filter((e) => shown.has(topicOf(e.kind)));
  const rows = matching.slice(-SHOWN).reverse();
  const labels = { at: t('events.at'), topic: t('events.topic'), what: t('events.what') };

  return html`<${Heading}>${t('nav.events')}<//>
    <p class="hint">${t('events.hint')}</p>
    <form class="card filters" onSubmit=${(e) => e.preventDefault()} aria-labelledby="events-filter">
      <h2 id="events-filter">${t('events.filter')}</h2>
      <div class="row">
        <div class="field">
          <label for="events-period">${t('events.period')}</label>
          <select id="events-period" value=${hours} onChange=${(e) => setHours(Number(e.currentTarget.value))}>
            ${PERIODS.map((p) => html`<option value=${p}>${t(`events.period.${p}`)}</option>`)}
          </select>
        </div>
      </div>
      <fieldset class="topics">
        <legend>${t('events.show')}</legend>
        ${TOPIC_KEYS.map(
          (key) =>
            html`<label class="check"
              ><input type="checkbox" id=${`events-topic-${key}`} checked=${shown.has(key)} onChange=${() => toggle(key)} /> ${t(`events.topic.${key}`)}</label
            >`,
        )}
      </fieldset>
      <label class="check"
        ><input type="checkbox" id="events-live" checked=${live} onChange=${(e) => setLive(e.currentTarget.checked)} /> ${t('events.live')}</label
      >
    </form>
    <${Note} note=${note} id="events-note" />
    ${
      events &&
      html`<section class="card" aria-labelledby="events-list">
        <h2 id="events-list">${t('events.list')}</h2>
        <p role="status" id="events-count">
          ${matching.length > SHOWN ? t('events.countCut', { shown: SHOWN, count: matching.length }) : t('events.count', { count: matching.length })}
        </p>
        ${
          rows.length > 0 &&
          html`<table class="responsive" id="events">
            <thead>
              <tr>
                ${Object.values(labels).map((l) => html`<th scope="col">${l}</th>`)}
              </tr>
            </thead>
            <tbody>
              ${rows.map(
                (e) =>
                  html`<tr key=${e.id} data-kind=${e.kind}>
                    <${Cell} label=${labels.at} cls="nowrap">${dateTime(e.at)}<//>
                    <${Cell} label=${labels.topic}>${t(`events.topic.${topicOf(e.kind)}`)}<//>
                    <${Cell} label=${labels.what}>${e.message}<//>
                  </tr>`,
              )}
            </tbody>
          </table>`
        }
      </section>`
    }`;
}
