// The current errors and warnings (spec 4.7), in the language of the Language setting.
import { useEffect } from 'preact/hooks';
import { messages, refreshMessages } from '../api.js';
import { t } from '../i18n.js';
import { Heading, html } from '../ui.js';

/** The messages as a list; used by the messages view and the dashboard. */
export function MessageList() {
  const list = messages.value;
  if (list.length === 0) return html`<p class="all-clear">${t('messages.none')}</p>`;
  return html`<ul class="messages">
    ${list.map(
      (m) =>
        html`<li class=${m.severity === 'ERROR' ? 'error' : 'warning'}>
          <p>
            <strong>${m.severity === 'ERROR' ? t('messages.error') : t('messages.warning')}</strong> ${m.message} <span class="code">(${m.errorCode})</span>
          </p>
          ${m.correctiveActions && html`<p class="action">${t('messages.action')} ${m.correctiveActions}</p>`}
        </li>`,
    )}
  </ul>`;
}

export function Messages() {
  useEffect(() => {
    refreshMessages().catch(() => undefined);
    const timer = setInterval(() => refreshMessages().catch(() => undefined), 5000);
    return () => clearInterval(timer);
  }, []);
  return html`<${Heading}>${t('nav.messages')}<//>
    <p class="hint">${t('messages.hint')}</p>
    <section class="card" aria-label=${t('nav.messages')}><${MessageList} /></section>`;
}
