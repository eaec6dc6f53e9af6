// Shared pieces of the views: the htm binding, headings that take the focus when a view opens, status lines and
// two-step confirmations (no browser dialogs: they block the page and are not styled).
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import htm from 'htm';
import { t } from './i18n.js';

export const html = htm.bind(h);

/** The view's heading: focused when the view opens, so keyboard and screen-reader users start there. */
export function Heading({ children }) {
  const ref = useRef(null);
  useEffect(() => ref.current && ref.current.focus(), []);
  return html`<h1 tabindex="-1" ref=${ref}>${children}</h1>`;
}

/**
 * A message line: `{kind: 'ok' | 'error' | 'info', text}` or null. Errors are alerts (read out at once), the rest
 * polite status updates.
 */
export function Note({ note, id }) {
  if (!note) return html`<p class="note empty" role="status" id=${id}></p>`;
  return note.kind === 'error'
    ? html`<p class="note error" role="alert" id=${id}>${note.text}</p>`
    : html`<p class=${`note ${note.kind}`} role="status" id=${id}>${note.text}</p>`;
}

/** A refused call as a sentence: the page's own words, then the controller's cause. */
export function refusal(err) {
  if (err && err.status === 0) return t('error.offline');
  return t('error.refused', { cause: err && err.message ? err.message : '' });
}

/** A button that asks again before it acts ("Remove" → "Remove X?" Yes / No; Escape means No). */
export function ConfirmButton({ label, question, onConfirm, disabled }) {
  const [asking, setAsking] = useState(false);
  const yes = useRef(null);
  const first = useRef(null);
  const answered = useRef(false);
  // The focus moves to "Yes" when asking, and back to the button after "No" (keyboard users stay in place).
  useEffect(() => {
    if (asking && yes.current) yes.current.focus();
    if (!asking && answered.current && first.current) first.current.focus();
  }, [asking]);
  const close = () => {
    answered.current = true;
    setAsking(false);
  };
  if (!asking) return html`<button type="button" class="danger" ref=${first} disabled=${disabled} onClick=${() => setAsking(true)}>${label}</button>`;
  return html`<span class="confirm" role="group" aria-label=${question} onKeyDown=${(e) => e.key === 'Escape' && close()}>
    <span>${question}</span>
    <button
      type="button"
      class="danger"
      ref=${yes}
      onClick=${() => {
        close();
        onConfirm();
      }}
    >
      ${t('action.yes')}
    </button>
    <button type="button" onClick=${close}>${t('action.no')}</button>
  </span>`;
}

/**
 * What a view loads from the controller (`load()`), with its status line and the actions that change it: `act(work,
 * ok)` runs a call, reports `ok` or the refusal in `note`, reloads, and answers the call's body (null when refused).
 */
export function useLoaded(load) {
  const [data, setData] = useState(null);
  const [note, setNote] = useState(null);
  const reload = async () => {
    try {
      setData(await load());
    } catch (err) {
      setNote({ kind: 'error', text: refusal(err) });
    }
  };
  useEffect(() => {
    reload();
  }, []);
  const act = async (work, ok) => {
    try {
      const answer = await work();
      setNote({ kind: 'ok', text: ok });
      await reload();
      return answer || {};
    } catch (err) {
      setNote({ kind: 'error', text: refusal(err) });
      return null;
    }
  };
  return { data, note, setNote, reload, act };
}

/** A table cell that names its column on narrow screens (the CSS shows `data-label` beside the value). */
export const Cell = ({ label, children, cls }) => html`<td data-label=${label} class=${cls}>${children}</td>`;
