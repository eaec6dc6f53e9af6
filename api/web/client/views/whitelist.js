// The local whitelist (spec 4.5): list, add, edit, delete, and pairing mode: 60 s in which the next tag presented
// at the reader is read (GET /v1/whitelist/pairing) and can be added.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, request } from '../api.js';
import { t } from '../i18n.js';
import { Cell, ConfirmButton, html, Note, refusal, useLoaded } from '../ui.js';

const TAG_TYPES = ['RFID', 'NFC', 'EVCCID'];
const PRIORITIES = ['NORMAL', 'HIGH'];
/** Pairing mode lasts this long (spec 3, 8). */
export const PAIRING_S = 60;
const POLL_MS = 1000;

const EMPTY = { id: '', tagType: '', number: '', name: '', userid: '', priority: '' };
/** A tag typed in by hand is most likely a card or key fob: RFID is preselected, so it never lands without a type. */
const MANUAL = { ...EMPTY, tagType: 'RFID' };

export function WhitelistManager() {
  const { data, note, setNote, reload, act } = useLoaded(async () => {
    const [list, people] = await Promise.all([call('GET', '/v1/whitelist?type=local'), call('GET', '/v1/users')]);
    return { tags: list.tags, users: people.users };
  });
  const tags = data && data.tags;
  const users = (data && data.users) || [];
  const [form, setForm] = useState(null); // {mode: 'add' | 'edit', entry}

  const userName = (id) => (users.find((u) => u.userId === id) || {}).userName || id || '';
  const remove = (id) => act(() => call('DELETE', `/v1/whitelist?type=local&ids=${encodeURIComponent(id)}`), t('whitelist.removed', { id }));

  const labels = {
    id: t('whitelist.id'),
    type: t('whitelist.type'),
    number: t('whitelist.number'),
    name: t('whitelist.name'),
    user: t('whitelist.user'),
    priority: t('whitelist.priority'),
    actions: t('common.actions'),
  };

  return html`<section aria-labelledby="tags-heading" class="card">
    <h2 id="tags-heading">${t('whitelist.heading')}</h2>
    <${Pairing} tags=${tags || []} onAdd=${(tag) => setForm({ mode: 'add', entry: { ...EMPTY, id: tag.id, tagType: tag.tagType || '' } })} />
    <${Note} note=${note} id="whitelist-note" />
    ${
      tags === null
        ? html`<p>${t('common.loading')}</p>`
        : tags.length === 0
          ? html`<p>${t('whitelist.empty')}</p>`
          : html`<table class="responsive" id="tags">
              <caption class="visually-hidden">
                ${t('whitelist.heading')}
              </caption>
              <thead>
                <tr>
                  ${Object.values(labels).map((l) => html`<th scope="col">${l}</th>`)}
                </tr>
              </thead>
              <tbody>
                ${tags.map(
                  (tag) =>
                    html`<tr data-id=${tag.id}>
                      <${Cell} label=${labels.id} cls="mono">${tag.id}<//>
                      <${Cell} label=${labels.type}>${tag.tagType || ''}<//>
                      <${Cell} label=${labels.number}>${tag.number ?? ''}<//>
                      <${Cell} label=${labels.name}>${tag.name || ''}<//>
                      <${Cell} label=${labels.user}>${userName(tag.userid)}<//>
                      <${Cell} label=${labels.priority}>${tag.priority ? t(`whitelist.priority.${tag.priority}`) : ''}<//>
                      <${Cell} label=${labels.actions} cls="row-actions">
                        <button
                          type="button"
                          onClick=${() => setForm({ mode: 'edit', entry: { ...EMPTY, ...tag, number: tag.number ?? '' } })}
                          aria-label=${t('whitelist.editTag', { id: tag.id })}
                        >
                          ${t('action.edit')}
                        </button>
                        <${ConfirmButton}
                          label=${t('action.delete')}
                          question=${t('whitelist.confirmDelete', { id: tag.id })}
                          onConfirm=${() => remove(tag.id)}
                        />
                      <//>
                    </tr>`,
                )}
              </tbody>
            </table>`
    }
    ${
      form
        ? html`<${TagForm}
            key=${`${form.mode}:${form.entry.id}`}
            mode=${form.mode}
            entry=${form.entry}
            users=${users}
            onDone=${(text) => {
              setForm(null);
              setNote({ kind: 'ok', text });
              reload();
            }}
            onCancel=${() => setForm(null)}
          />`
        : html`<div class="actions">
            <button type="button" class="primary" onClick=${() => setForm({ mode: 'add', entry: MANUAL })}>${t('whitelist.add')}</button>
          </div>`
    }
  </section>`;
}

/** Add or edit one entry (edit replaces its data: fields left empty are cleared). */
function TagForm({ mode, entry, users, onDone, onCancel }) {
  const [values, setValues] = useState(entry);
  const [note, setNote] = useState(null);
  const [idCause, setIdCause] = useState(null); // the controller's refusal of the id, shown beside it
  const [busy, setBusy] = useState(false);
  const first = useRef(null);
  const idInput = useRef(null);
  useEffect(() => first.current && first.current.focus(), []);
  const set = (key) => (e) => setValues({ ...values, [key]: e.currentTarget.value });

  async function submit(event) {
    event.preventDefault();
    const id = values.id.trim();
    if (!id) {
      setNote({ kind: 'error', text: t('whitelist.idMissing') });
      return;
    }
    const tag = { id };
    if (values.tagType) tag.tagType = values.tagType;
    if (String(values.number).trim() !== '') tag.number = /^\d+$/.test(String(values.number).trim()) ? Number(values.number) : values.number;
    if (values.name.trim()) tag.name = values.name.trim();
    if (values.userid) tag.userid = values.userid;
    if (values.priority) tag.priority = values.priority;
    setBusy(true);
    try {
      await call('POST', '/v1/whitelist', { type: 'local', command: mode, tags: [tag] });
    } catch (err) {
      setNote({ kind: 'error', text: refusal(err) });
      // The RFID id rule (a hex UID) names the id: its cause goes beside the field, which takes the focus.
      const aboutId = err.status === 400 && tag.tagType === 'RFID' && /\bRFID\b/.test(err.message);
      setIdCause(aboutId ? err.message : null);
      if (aboutId && idInput.current) idInput.current.focus();
      setBusy(false);
      return;
    }
    onDone(t(mode === 'add' ? 'whitelist.added' : 'whitelist.saved', { id }));
  }

  const select = (key, id, options, label) =>
    html`<div class="field">
      <label for=${id}>${label}</label>
      <select id=${id} value=${values[key]} onChange=${set(key)}>
        <option value="">${t('common.none')}</option>
        ${options.map(([value, text]) => html`<option value=${value}>${text}</option>`)}
      </select>
    </div>`;

  return html`<form class="subform" onSubmit=${submit} novalidate aria-labelledby="tag-form-heading">
    <h3 id="tag-form-heading">${mode === 'add' ? t('whitelist.addHeading') : t('whitelist.editHeading', { id: entry.id })}</h3>
    <div class="field">
      <label for="tag-id">${t('whitelist.id')}</label>
      <input
        id="tag-id"
        value=${values.id}
        onInput=${set('id')}
        readonly=${mode === 'edit'}
        maxlength="255"
        spellcheck="false"
        autocapitalize="characters"
        aria-invalid=${idCause ? 'true' : undefined}
        aria-describedby=${[values.tagType === 'RFID' ? 'tag-id-rule' : '', idCause ? 'tag-id-cause' : ''].filter(Boolean).join(' ') || undefined}
        ref=${(el) => {
          idInput.current = el;
          if (mode === 'add' && !entry.id) first.current = el;
        }}
      />
      ${values.tagType === 'RFID' && html`<p class="hint" id="tag-id-rule">${t('whitelist.idRuleRfid')}</p>`}
      ${idCause && html`<p class="cause" id="tag-id-cause">${idCause}</p>`}
    </div>
    ${select(
      'tagType',
      'tag-type',
      TAG_TYPES.map((x) => [x, x]),
      t('whitelist.type'),
    )}
    <div class="field">
      <label for="tag-name">${t('whitelist.name')}</label>
      <input id="tag-name" value=${values.name} onInput=${set('name')} maxlength="255" ref=${mode === 'edit' || entry.id ? first : undefined} />
    </div>
    <div class="field">
      <label for="tag-number">${t('whitelist.number')}</label>
      <input id="tag-number" type="number" inputmode="numeric" min="0" step="1" value=${values.number} onInput=${set('number')} />
    </div>
    ${select(
      'userid',
      'tag-user',
      users.map((u) => [u.userId, u.userName]),
      t('whitelist.user'),
    )}
    ${select(
      'priority',
      'tag-priority',
      PRIORITIES.map((p) => [p, t(`whitelist.priority.${p}`)]),
      t('whitelist.priority'),
    )}
    <${Note} note=${note} id="tag-form-note" />
    <div class="actions">
      <button type="submit" class="primary" disabled=${busy}>${mode === 'add' ? t('whitelist.addSubmit') : t('action.save')}</button>
      <button type="button" onClick=${onCancel}>${t('action.cancel')}</button>
    </div>
  </form>`;
}

/**
 * Pairing: POST /v1/whitelist/pairing starts it (only while the charge point is idle); the page counts the 60 s
 * down and asks GET /v1/whitelist/pairing each second until a tag was read (it answers 500 before that).
 */
function Pairing({ tags, onAdd }) {
  const [phase, setPhase] = useState('off'); // off | waiting | read | timeout | refused
  const [left, setLeft] = useState(PAIRING_S);
  const [tag, setTag] = useState(null);
  const [cause, setCause] = useState('');
  // The tag "Add this tag" was pressed for: once it is in the list, the box says it was added, not "already known".
  const [offered, setOffered] = useState(null);
  const timer = useRef(null);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function start() {
    clearTimeout(timer.current);
    setTag(null);
    setOffered(null);
    try {
      await call('POST', '/v1/whitelist/pairing');
    } catch (err) {
      // Not idle (the spec's 500): the page's own words with the state in words, not the controller's state name.
      const s = err.status === 500 ? await request('GET', '/v1/system_state').catch(() => null) : null;
      setCause(s && s.ok ? t('pairing.refusedState', { state: t(`systemState.${s.json.systemState}`) }) : refusal(err));
      setPhase('refused');
      return;
    }
    const endsAt = Date.now() + PAIRING_S * 1000;
    setLeft(PAIRING_S);
    setPhase('waiting');
    const poll = async () => {
      const remaining = Math.max(0, Math.ceil((endsAt - Date.now()) / 1000));
      setLeft(remaining);
      const r = await request('GET', '/v1/whitelist/pairing').catch(() => null);
      if (r && r.ok) {
        setTag(r.json);
        setPhase('read');
        return;
      }
      if (remaining === 0) {
        setPhase('timeout');
        return;
      }
      timer.current = setTimeout(poll, POLL_MS);
    };
    timer.current = setTimeout(poll, POLL_MS);
  }

  const known = tag && tags.find((x) => x.id.toLowerCase() === tag.id.toLowerCase());
  return html`<div class="pairing" id="pairing">
    <h3>${t('pairing.heading')}</h3>
    <p class="hint">${t('pairing.hint')}</p>
    <div class="actions">
      <button type="button" onClick=${start} disabled=${phase === 'waiting'}>${phase === 'waiting' ? t('pairing.active') : t('pairing.start')}</button>
    </div>
    <div role="status" class="pairing-status">
      ${phase === 'waiting' && html`<p>${t('pairing.waiting')} <span class="countdown" aria-hidden="true">${t('pairing.left', { seconds: left })}</span></p>`}
      ${phase === 'timeout' && html`<p>${t('pairing.timeout')}</p>`}
      ${
        phase === 'read' &&
        html`<p>${t('pairing.read')} <strong class="mono" id="paired-tag">${tag.id}</strong>${tag.tagType ? ` (${tag.tagType})` : ''}</p>
          ${known ? html`<p id="pairing-known">${t(offered === tag.id ? 'pairing.added' : 'pairing.known', { name: known.name || known.id })}</p>` : ''}`
      }
    </div>
    ${phase === 'waiting' && html`<progress max=${PAIRING_S} value=${left} aria-label=${t('pairing.left', { seconds: left })}></progress>`}
    ${phase === 'refused' && html`<p class="note error" role="alert" id="pairing-refused">${cause}</p>`}
    ${
      phase === 'read' &&
      !known &&
      html`<div class="actions">
        <button
          type="button"
          class="primary"
          onClick=${() => {
            setOffered(tag.id);
            onAdd(tag);
          }}
        >
          ${t('pairing.addThis')}
        </button>
      </div>`
    }
  </div>`;
}
