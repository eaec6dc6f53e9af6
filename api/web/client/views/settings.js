// One settings group (spec 2.7), generated from GET /v1/settings: sub-groups as sections, fields by type (enums as
// selects, triples as three inputs), `parents` showing and hiding dependent fields as the form changes, fields the
// role may not change (isNotAuthorized) and read-only ones shown read-only, and a refused write's cause beside each
// field it names (the 400's per-pair `cause`). Saving sends the changed fields in one PATCH: all or nothing.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { account, roleAtLeast } from '../api.js';
import { utcDateTime } from '../format.js';
import { t } from '../i18n.js';
import { fieldsByKey, loadSettings, rawValue, saveSettings, settings } from '../settings-store.js';
import { Heading, html, Note, refusal } from '../ui.js';
import { NetworkStatus } from './network-status.js';
import { ControllerClock } from '../clock.js';
import { WhitelistManager } from './whitelist.js';

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** What an input holds, as sent: integers parsed when they look like one (the controller judges the rest). */
const parseInt10 = (text) => (/^\s*-?\d+\s*$/.test(text) ? Number(text) : text);

export function SettingsGroup({ groupKey }) {
  // Fresh on opening: another client may have changed them.
  useEffect(() => {
    loadSettings().catch(() => undefined);
  }, []);
  const data = settings.value;
  const group = data && data.groups.find((g) => g.key === groupKey);
  return html`<${Heading}>${t(`group.${groupKey}`)}<//> ${groupKey === 'network' && roleAtLeast(account.value.role, 'operator') && html`<${NetworkStatus} />`}
    ${
      groupKey === 'system' &&
      html`<section class="card" aria-labelledby="clock-heading">
        <h2 id="clock-heading">${t('clock.heading')}</h2>
        <${ControllerClock} />
      </section>`
    }
    ${!data && html`<p>${t('common.loading')}</p>`} ${data && group && html`<${SettingsForm} group=${group} />`}
    ${data && !group && groupKey !== 'whitelists' && html`<p>${t('settings.none')}</p>`} ${groupKey === 'whitelists' && html`<${WhitelistManager} />`}`;
}

function SettingsForm({ group }) {
  const all = fieldsByKey.value;
  const [draft, setDraft] = useState({});
  const [causes, setCauses] = useState({});
  const [note, setNote] = useState(null);
  const [busy, setBusy] = useState(false);
  const form = useRef(null);

  // The values the form works on: the controller's, with the edits on top.
  const valueOf = (key) => (key in draft ? draft[key] : all.has(key) ? rawValue(all.get(key)) : undefined);
  const shown = (field) => (field.parents || []).every((p) => p.value.some((v) => same(v, valueOf(p.name))));
  const editable = (field) => field.mode === 'rw' && field.isNotAuthorized !== 1;
  const fields = useMemo(() => group.sub_groups.flatMap((sg) => sg.fields), [group]);
  const changed = fields.filter((f) => editable(f) && shown(f) && f.key in draft && !same(draft[f.key], rawValue(f)));

  const edit = (key, value) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setNote(null);
  };

  async function submit(event) {
    event.preventDefault();
    if (changed.length === 0) {
      setNote({ kind: 'info', text: t('settings.nothing') });
      return;
    }
    setBusy(true);
    setNote(null);
    setCauses({});
    try {
      const result = await saveSettings(changed.map((f) => ({ key: f.key, value: draft[f.key] })));
      await loadSettings();
      setDraft({});
      setNote({ kind: 'ok', text: result.reboot_required ? t('settings.savedReboot') : t('settings.saved') });
    } catch (err) {
      const perKey = {};
      for (const p of (err.json && err.json.params) || []) if (p.cause) perKey[p.key] = p.cause;
      setCauses(perKey);
      const named = Object.keys(perKey);
      setNote({ kind: 'error', text: named.length ? t('settings.refused', { count: named.length }) : refusal(err) });
      // The first field with a cause takes the focus, so its message is read out with it.
      requestAnimationFrame(() => {
        const first = named.length && form.current && form.current.querySelector('[aria-invalid="true"]');
        if (first) first.focus();
      });
    } finally {
      setBusy(false);
    }
  }

  return html`<form ref=${form} onSubmit=${submit} novalidate class="settings">
    ${group.sub_groups.map(
      (sg) =>
        html`<section aria-labelledby=${`sg-${sg.key}`} class="card">
          <h2 id=${`sg-${sg.key}`}>${sg.label}</h2>
          ${sg.fields
            .filter(shown)
            .map((f) => html`<${Field} field=${f} value=${valueOf(f.key)} editable=${editable(f)} cause=${causes[f.key]} onChange=${(v) => edit(f.key, v)} />`)}
        </section>`,
    )}
    <${Note} note=${note} id="settings-note" />
    ${
      fields.some(editable)
        ? html`<div class="actions">
            <button type="submit" class="primary" disabled=${busy}>${t('action.save')}</button>
            <button
              type="button"
              disabled=${busy || Object.keys(draft).length === 0}
              onClick=${() => {
                setDraft({});
                setCauses({});
                setNote(null);
              }}
            >
              ${t('action.discard')}
            </button>
          </div>`
        : html`<p class="hint" id="settings-readonly">${t('settings.nothingToChange')}</p>`
    }
  </form>`;
}

/** One field: label, input by type, unit, description, and the controller's cause when it refused the value. */
function Field({ field, value, editable, cause, onChange }) {
  const id = `f-${field.key}`;
  const described =
    [cause ? `e-${field.key}` : '', field.description ? `d-${field.key}` : '', !editable ? `r-${field.key}` : ''].filter(Boolean).join(' ') || undefined;
  const common = { 'aria-describedby': described, 'aria-invalid': cause ? 'true' : undefined };
  const unit = field.unit && html`<span class="unit">${field.unit}</span>`;
  let control;
  if (!editable) {
    const text =
      field.type === 'enum'
        ? field.value.label
        : Array.isArray(field.value)
          ? field.value.join(' / ')
          : // The controller's time as read with the settings, in UTC as its description says (the clock card above ticks, in the controller's zone).
            field.key === 'ControllerTime_custom'
            ? utcDateTime(field.value)
            : String(field.value);
    control = html`<input id=${id} readonly value=${text} ...${common} />${unit}`;
  } else if (field.type === 'enum') {
    control = html`<select id=${id} value=${String(value)} onChange=${(e) => onChange(Number(e.currentTarget.value))} ...${common}>
      ${(field.options || [field.value]).map((o) => html`<option value=${String(o.value)}>${o.label}</option>`)}
    </select>`;
  } else if (field.type === 'int') {
    const [min, max] = field.validation ? field.validation.range : [];
    control = html`<input
        id=${id}
        type="number"
        inputmode="numeric"
        step="1"
        min=${min}
        max=${max}
        value=${value}
        onInput=${(e) => onChange(parseInt10(e.currentTarget.value))}
        ...${common}
      />${unit}`;
  } else if (field.type === 'triple') {
    const values = Array.isArray(value) ? value : ['', '', ''];
    return html`<fieldset class="field triple">
      <legend>${field.label}</legend>
      <div class="triple-inputs">
        ${['L1', 'L2', 'L3'].map(
          (phase, i) =>
            html`<span class="phase">
              <label for=${`${id}-${i}`}>${phase}</label>
              <input
                id=${`${id}-${i}`}
                type="number"
                inputmode="numeric"
                step="1"
                value=${values[i]}
                onInput=${(e) => {
                  const next = [...values];
                  next[i] = parseInt10(e.currentTarget.value);
                  onChange(next);
                }}
                ...${common}
              />${unit}
            </span>`,
        )}
      </div>
      <${FieldNotes} field=${field} editable=${editable} cause=${cause} />
    </fieldset>`;
  } else if (field.writeOnly) {
    // A password: never shown (the controller sends it empty); typing a new one replaces the stored one.
    const [, max] = field.validation ? field.validation.length : [];
    const state = t(field.isSet ? 'settings.secretSet' : 'settings.secretUnset');
    control = html`<input
      id=${id}
      type="password"
      autocomplete="new-password"
      maxlength=${max}
      value=${value}
      placeholder=${state}
      title=${state}
      onInput=${(e) => onChange(e.currentTarget.value)}
      ...${common}
    />`;
  } else {
    const [, max] = field.validation ? field.validation.length : [];
    control = html`<input
      id=${id}
      type="text"
      maxlength=${max}
      value=${value}
      spellcheck="false"
      onInput=${(e) => onChange(e.currentTarget.value)}
      ...${common}
    />`;
  }
  return html`<div class=${`field${cause ? ' invalid' : ''}`} data-key=${field.key}>
    <label for=${id}>${field.label}</label>
    <div class="control">${control}</div>
    <${FieldNotes} field=${field} editable=${editable} cause=${cause} />
  </div>`;
}

function FieldNotes({ field, editable, cause }) {
  return html`${cause && html`<p class="cause" id=${`e-${field.key}`}>${cause.charAt(0).toUpperCase() + cause.slice(1)}</p>`}
  ${field.description && html`<p class="description" id=${`d-${field.key}`}>${field.description}</p>`}
  ${!editable && html`<p class="readonly-note" id=${`r-${field.key}`}>${field.mode === 'ro' ? t('settings.readOnly') : t('settings.notAuthorized')}</p>`}`;
}
