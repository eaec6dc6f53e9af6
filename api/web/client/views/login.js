import { useRef, useState } from 'preact/hooks';
import { login, logoutReason, ApiError } from '../api.js';
import { t } from '../i18n.js';
import { LanguageSwitch } from '../language-switch.js';
import { html, Note } from '../ui.js';

/** The login form; it also says why the page was logged out. */
export function Login() {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState(null);
  const password = useRef(null);
  const reason = logoutReason.value;

  async function submit(event) {
    event.preventDefault();
    const form = event.currentTarget;
    const username = form.elements.username.value.trim();
    const secret = form.elements.password.value;
    if (!username || !secret) {
      setNote({ kind: 'error', text: t('login.missing') });
      return;
    }
    setBusy(true);
    setNote(null);
    try {
      await login(username, secret);
    } catch (err) {
      form.elements.password.value = '';
      const code = err instanceof ApiError && err.json ? err.json.code : undefined;
      setNote({ kind: 'error', text: code === 1001 ? t('login.refused') : err.status === 0 ? t('error.offline') : t('error.refused', { cause: err.message }) });
      password.current && password.current.focus();
      setBusy(false);
    }
  }

  return html`<main id="main" class="login">
    <h1>${t('app.title')}</h1>
    ${reason && html`<p class=${reason === 'loggedOut.manual' ? 'note info' : 'note warning'} role="alert" id="logout-reason">${t(reason)}</p>`}
    <form onSubmit=${submit} novalidate>
      <div class="field">
        <label for="login-username">${t('login.username')}</label>
        <input id="login-username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="255" required />
      </div>
      <div class="field">
        <label for="login-password">${t('login.password')}</label>
        <input id="login-password" name="password" type="password" autocomplete="current-password" maxlength="255" required ref=${password} />
      </div>
      <${Note} note=${note} id="login-note" />
      <div class="actions"><button type="submit" class="primary" disabled=${busy}>${busy ? t('login.busy') : t('login.submit')}</button></div>
    </form>
    <${LanguageSwitch} id="login-language" />
    <p class="hint">${t('login.hint')}</p>
  </main>`;
}
