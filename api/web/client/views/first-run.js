// First run: an account whose password was generated (the first start's operator password, printed once on the
// console, or one made by another account) chooses its own before anything else. Further accounts are made by the
// operator in Accounts, up to the operator's own role (docs/web-interface.md, First run).
import { useRef, useState } from 'preact/hooks';
import { call, logout, session } from '../api.js';
import { t } from '../i18n.js';
import { LanguageSwitch } from '../language-switch.js';
import { html, Note, refusal } from '../ui.js';

export function FirstRun() {
  const who = session.value;
  const [note, setNote] = useState(null);
  const [busy, setBusy] = useState(false);
  const first = useRef(null);

  async function submit(event) {
    event.preventDefault();
    const f = event.currentTarget.elements;
    if (f.next.value !== f.again.value) {
      setNote({ kind: 'error', text: t('firstRun.mismatch') });
      f.again.focus();
      return;
    }
    setBusy(true);
    try {
      await call('POST', `/v1/accounts/${encodeURIComponent(who.username)}/password`, { password: f.next.value, currentPassword: f.current.value });
      session.value = { ...session.peek(), mustChange: false };
    } catch (err) {
      setNote({ kind: 'error', text: refusal(err) });
      setBusy(false);
      first.current && first.current.focus();
    }
  }

  return html`<main id="main" class="login first-run">
    <h1>${t('firstRun.title')}</h1>
    <p>${t('firstRun.why', { name: who.username })}</p>
    <form onSubmit=${submit} novalidate>
      <input type="text" name="username" autocomplete="username" value=${who.username} hidden />
      <div class="field">
        <label for="first-current">${t('firstRun.current')}</label>
        <input id="first-current" name="current" type="password" autocomplete="current-password" maxlength="255" ref=${first} />
      </div>
      <div class="field">
        <label for="first-next">${t('firstRun.next')}</label>
        <input id="first-next" name="next" type="password" autocomplete="new-password" maxlength="255" aria-describedby="first-rule" />
        <p class="hint" id="first-rule">${t('firstRun.rule')}</p>
      </div>
      <div class="field">
        <label for="first-again">${t('firstRun.again')}</label>
        <input id="first-again" name="again" type="password" autocomplete="new-password" maxlength="255" />
      </div>
      <${Note} note=${note} id="first-note" />
      <div class="actions">
        <button type="submit" class="primary" disabled=${busy}>${t('firstRun.submit')}</button>
        <button type="button" onClick=${() => logout()}>${t('action.logout')}</button>
      </div>
    </form>
    <p class="hint" id="first-accounts">${t('firstRun.accounts')}</p>
    <${LanguageSwitch} id="first-language" />
  </main>`;
}
