// Charging users (spec 4.4): list, add, rename, delete.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.js';
import { t } from '../i18n.js';
import { Cell, ConfirmButton, Heading, html, Note, useLoaded } from '../ui.js';

export function Users() {
  const { data: users, note, setNote, act } = useLoaded(async () => (await call('GET', '/v1/users')).users);
  const [editing, setEditing] = useState(null); // {userId, userName}

  async function add(event) {
    event.preventDefault();
    const input = event.currentTarget.elements.userName;
    const userName = input.value.trim();
    if (!userName) {
      setNote({ kind: 'error', text: t('users.nameMissing') });
      return;
    }
    if (await act(() => call('POST', '/v1/users', { userName }), t('users.added', { name: userName }))) input.value = '';
  }

  async function rename(event) {
    event.preventDefault();
    const userName = event.currentTarget.elements.rename.value.trim();
    if (!userName) return setNote({ kind: 'error', text: t('users.nameMissing') });
    if (await act(() => call('PATCH', `/v1/users/${editing.userId}`, { userName }), t('users.renamed', { name: userName }))) setEditing(null);
  }

  const labels = { name: t('users.name'), id: t('users.id'), actions: t('common.actions') };
  return html`<${Heading}>${t('nav.users')}<//>
    <p class="hint">${t('users.hint')}</p>
    <${Note} note=${note} id="users-note" />
    <section class="card" aria-labelledby="users-list">
      <h2 id="users-list">${t('users.list')}</h2>
      ${
        users === null
          ? html`<p>${t('common.loading')}</p>`
          : users.length === 0
            ? html`<p>${t('users.empty')}</p>`
            : html`<table class="responsive" id="users">
                <thead>
                  <tr>
                    <th scope="col">${labels.name}</th>
                    <th scope="col">${labels.id}</th>
                    <th scope="col">${labels.actions}</th>
                  </tr>
                </thead>
                <tbody>
                  ${users.map((u) =>
                    editing && editing.userId === u.userId
                      ? html`<tr>
                          <td colspan="3"><${RenameForm} user=${u} onSubmit=${rename} onCancel=${() => setEditing(null)} /></td>
                        </tr>`
                      : html`<tr>
                          <${Cell} label=${labels.name}>${u.userName}<//>
                          <${Cell} label=${labels.id} cls="mono small">${u.userId}<//>
                          <${Cell} label=${labels.actions} cls="row-actions">
                            <button type="button" aria-label=${t('users.renameUser', { name: u.userName })} onClick=${() => setEditing(u)}>
                              ${t('users.rename')}
                            </button>
                            <${ConfirmButton}
                              label=${t('action.delete')}
                              question=${t('users.confirmDelete', { name: u.userName })}
                              onConfirm=${() => act(() => call('DELETE', `/v1/users/${u.userId}`), t('users.deleted', { name: u.userName }))}
                            />
                          <//>
                        </tr>`,
                  )}
                </tbody>
              </table>`
      }
    </section>
    <form class="card" onSubmit=${add} novalidate aria-labelledby="users-add">
      <h2 id="users-add">${t('users.add')}</h2>
      <div class="field">
        <label for="user-name">${t('users.name')}</label>
        <input id="user-name" name="userName" maxlength="255" />
      </div>
      <div class="actions"><button type="submit" class="primary">${t('users.addSubmit')}</button></div>
    </form>`;
}

function RenameForm({ user, onSubmit, onCancel }) {
  const input = useRef(null);
  useEffect(() => input.current && input.current.focus(), []);
  return html`<form class="inline" onSubmit=${onSubmit}>
    <label for="rename">${t('users.newName', { name: user.userName })}</label>
    <input id="rename" name="rename" value=${user.userName} maxlength="255" ref=${input} />
    <button type="submit" class="primary">${t('action.save')}</button>
    <button type="button" onClick=${onCancel}>${t('action.cancel')}</button>
  </form>`;
}
