import { useEffect, useRef, useState } from 'preact/hooks';
import { abandonInterrupted, ApiError, interrupted, login, logoutReason } from '../api.js';
import { t } from '../i18n.js';
import { LanguageSwitch } from '../language-switch.js';
import { html, Note } from '../ui.js';

/** The user name and password form; `username` fills the name in and puts the focus on the password. */
function LoginForm({ username }) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState(null);
  const password = useRef(null);
  useEffect(() => {
    if (username && password.current) password.current.focus();
  }, []);

  async function submit(event) {
    event.preventDefault();
    const form = event.currentTarget;
    const name = form.elements.username.value.trim();
    const secret = form.elements.password.value;
    if (!name || !secret) {
      setNote({ kind: 'error', text: t('login.missing') });
      return;
    }
    setBusy(true);
    setNote(null);
    try {
      await login(name, secret);
    } catch (err) {
      form.elements.password.value = '';
      const code = err instanceof ApiError && err.json ? err.json.code : undefined;
      setNote({ kind: 'error', text: code === 1001 ? t('login.refused') : err.status === 0 ? t('error.offline') : t('error.refused', { cause: err.message }) });
      password.current && password.current.focus();
      setBusy(false);
    }
  }

  return html`<form onSubmit=${submit} novalidate>
    <div class="field">
      <label for="login-username">${t('login.username')}</label>
      <input
        id="login-username"
        name="username"
        autocomplete="username"
        autocapitalize="none"
        spellcheck="false"
        maxlength="255"
        required
        value=${username || ''}
      />
    </div>
    <div class="field">
      <label for="login-password">${t('login.password')}</label>
      <input id="login-password" name="password" type="password" autocomplete="current-password" maxlength="255" required ref=${password} />
    </div>
    <${Note} note=${note} id="login-note" />
    <div class="actions"><button type="submit" class="primary" disabled=${busy}>${busy ? t('login.busy') : t('login.submit')}</button></div>
  </form>`;
}

const reasonNote = (reason) =>
  reason && html`<p class=${reason === 'loggedOut.manual' ? 'note info' : 'note warning'} role="alert" id="logout-reason">${t(reason)}</p>`;

/** The login page; it also says why the page was logged out. */
export function Login() {
  return html`<main id="main" class="login">
    <h1>${t('app.title')}</h1>
    ${reasonNote(logoutReason.value)}
    <${LoginForm} />
    <${LanguageSwitch} id="login-language" />
    <p class="hint">${t('login.hint')}</p>
  </main>`;
}

/**
 * The session ended while the views were open (another login, the time-out): a dialog over the page, which stays as
 * it was, so what was typed can be saved once the same account has logged in again.
 */
export function LoginDialog() {
  const who = interrupted.value;
  return html`<div class="dialog-backdrop">
    <div class="dialog login" role="dialog" aria-modal="true" aria-labelledby="relogin-title" aria-describedby="logout-reason">
      <h2 id="relogin-title">${t('relogin.title')}</h2>
      ${reasonNote(logoutReason.value)}
      <p>${t('relogin.kept', { name: who.username })}</p>
      <${LoginForm} username=${who.username} />
      <button type="button" class="link" onClick=${abandonInterrupted}>${t('relogin.leave')}</button>
    </div>
  </div>`;
}
