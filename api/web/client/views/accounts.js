// Login accounts (extension /v1/accounts, role operator or higher): list, add, reset password, change role,
// remove. Nobody gives a role above their own or acts on an account above it; a generated password is shown once.
import { useState } from 'preact/hooks';
import { account, call, ROLES, roleAtLeast } from '../api.js';
import { t } from '../i18n.js';
import { date } from '../format.js';
import { Cell, ConfirmButton, Heading, html, Note, useLoaded } from '../ui.js';

export function Accounts() {
  const me = account.value;
  const { data: accounts, note, setNote, act: run } = useLoaded(async () => (await call('GET', '/v1/accounts')).accounts);
  const [secret, setSecret] = useState(null); // {username, password}: shown until dismissed
  const act = (work, ok) => {
    setSecret(null);
    return run(work, ok);
  };

  const giveable = ROLES.filter((r) => roleAtLeast(me.role, r));

  async function add(event) {
    event.preventDefault();
    const form = event.currentTarget;
    const f = form.elements;
    const username = f.username.value.trim();
    const body = { username, role: f.role.value };
    if (f.password.value) body.password = f.password.value;
    if (!username) return setNote({ kind: 'error', text: t('accounts.nameMissing') });
    const answer = await act(() => call('POST', '/v1/accounts', body), t('accounts.added', { name: username }));
    if (answer) {
      form.reset();
      if (answer.password) setSecret({ username, password: answer.password });
    }
  }

  async function resetPassword(username) {
    const answer = await act(() => call('POST', `/v1/accounts/${encodeURIComponent(username)}/password`), t('accounts.reset', { name: username }));
    if (answer && answer.password) setSecret({ username, password: answer.password });
  }

  const labels = { name: t('accounts.username'), role: t('accounts.role'), created: t('accounts.created'), actions: t('common.actions') };
  return html`<${Heading}>${t('nav.accounts')}<//>
    <p class="hint">${t('accounts.hint')}</p>
    <${Note} note=${note} id="accounts-note" />
    ${
      secret &&
      html`<div class="secret card" role="alert" id="generated-password">
        <p>${t('accounts.secret', { name: secret.username })}</p>
        <p><code class="password">${secret.password}</code></p>
        <div class="actions"><button type="button" onClick=${() => setSecret(null)}>${t('accounts.secretDone')}</button></div>
      </div>`
    }
    <section class="card" aria-labelledby="accounts-list">
      <h2 id="accounts-list">${t('accounts.list')}</h2>
      ${
        accounts === null
          ? html`<p>${t('common.loading')}</p>`
          : html`<table class="responsive" id="accounts">
              <thead>
                <tr>
                  ${Object.values(labels).map((l) => html`<th scope="col">${l}</th>`)}
                </tr>
              </thead>
              <tbody>
                ${accounts.map((a) => {
                  const mine = a.username === me.username;
                  const above = !roleAtLeast(me.role, a.role);
                  return html`<tr data-username=${a.username}>
                    <${Cell} label=${labels.name}>${a.username}${mine ? html` <span class="tag">${t('accounts.you')}</span>` : ''}<//>
                    <${Cell} label=${labels.role}>${t(`role.${a.role}`)}<//>
                    <${Cell} label=${labels.created}>${date(a.createdAt)}<//>
                    <${Cell} label=${labels.actions} cls="row-actions">
                      ${
                        above
                          ? html`<span class="hint">${t('accounts.above')}</span>`
                          : html`${
                                !mine &&
                                html`<${RoleChange}
                                  account=${a}
                                  roles=${giveable}
                                  onChange=${(role) =>
                                    act(
                                      () => call('PATCH', `/v1/accounts/${encodeURIComponent(a.username)}`, { role }),
                                      t('accounts.roleChanged', { name: a.username, role: t(`role.${role}`) }),
                                    )}
                                />`
                              }
                              <${ConfirmButton}
                                label=${t('accounts.resetPassword')}
                                question=${t('accounts.confirmReset', { name: a.username })}
                                onConfirm=${() => resetPassword(a.username)}
                              />
                              ${
                                !mine &&
                                html`<${ConfirmButton}
                                  label=${t('action.remove')}
                                  question=${t('accounts.confirmRemove', { name: a.username })}
                                  onConfirm=${() =>
                                    act(() => call('DELETE', `/v1/accounts/${encodeURIComponent(a.username)}`), t('accounts.removed', { name: a.username }))}
                                />`
                              }`
                      }
                    <//>
                  </tr>`;
                })}
              </tbody>
            </table>`
      }
    </section>
    <form class="card" onSubmit=${add} novalidate aria-labelledby="accounts-add">
      <h2 id="accounts-add">${t('accounts.add')}</h2>
      <div class="field">
        <label for="account-name">${t('accounts.username')}</label>
        <input
          id="account-name"
          name="username"
          maxlength="64"
          autocomplete="off"
          autocapitalize="none"
          spellcheck="false"
          aria-describedby="account-name-hint"
        />
        <p class="description" id="account-name-hint">${t('accounts.nameRule')}</p>
      </div>
      <div class="field">
        <label for="account-role">${t('accounts.role')}</label>
        <select id="account-role" name="role">
          ${giveable.map((r) => html`<option value=${r}>${t(`role.${r}`)}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="account-password">${t('accounts.password')}</label>
        <input id="account-password" name="password" type="password" autocomplete="new-password" maxlength="255" aria-describedby="account-password-hint" />
        <p class="description" id="account-password-hint">${t('accounts.passwordRule')}</p>
      </div>
      <div class="actions"><button type="submit" class="primary">${t('accounts.addSubmit')}</button></div>
    </form>`;
}

function RoleChange({ account, roles, onChange }) {
  const [role, setRole] = useState(account.role);
  const id = `role-${account.username}`;
  return html`<span class="role-change">
    <label for=${id} class="visually-hidden">${t('accounts.newRole', { name: account.username })}</label>
    <select id=${id} value=${role} onChange=${(e) => setRole(e.currentTarget.value)}>
      ${roles.map((r) => html`<option value=${r}>${t(`role.${r}`)}</option>`)}
    </select>
    <button type="button" disabled=${role === account.role} onClick=${() => onChange(role)}>${t('accounts.changeRole')}</button>
  </span>`;
}
