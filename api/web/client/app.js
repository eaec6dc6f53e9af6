// The web interface of the charge controller: one page, views chosen by the address's hash (#/dashboard,
// #/settings/network, …). It uses the public REST API (/v1) and the extensions docs/api-overview.md marks. Preact + htm +
// @preact/signals as ES modules from the controller itself (no build step).
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { computed, effect, signal } from '@preact/signals';
import { account, checkSession, logout, messages, offline, refreshMessages, restartController, restarting, roleAtLeast, session } from './api.js';
import { t } from './i18n.js';
import { LanguageSwitch } from './language-switch.js';
import './clock.js'; // the controller's time zone for every time shown
import { clearSettings, fieldsByKey, GROUP_KEYS, loadSettings, rebootPending, rebootRequired, visibleGroups } from './settings-store.js';
import { ConfirmButton, Heading, html, refusal } from './ui.js';
import { Accounts } from './views/accounts.js';
import { Dashboard } from './views/dashboard.js';
import { Events } from './views/events.js';
import { FirstRun } from './views/first-run.js';
import { FieldService } from './views/field-service.js';
import { Login, LoginDialog } from './views/login.js';
import { Messages } from './views/messages.js';
import { SettingsGroup } from './views/settings.js';
import { Transactions } from './views/transactions.js';
import { Updates } from './views/updates.js';
import { Users } from './views/users.js';

const route = signal(location.hash.replace(/^#\/?/, '') || 'dashboard');
addEventListener('hashchange', () => (route.value = location.hash.replace(/^#\/?/, '') || 'dashboard'));

/** The views, in the order of the navigation. `show` decides whether the session sees it. */
const VIEWS = computed(() => [
  { path: 'dashboard', label: t('nav.dashboard'), view: () => html`<${Dashboard} />` },
  ...GROUP_KEYS.map((key) => ({
    path: `settings/${key}`,
    label: t(`group.${key}`),
    settings: true,
    // The whitelist's tags are managed in its view even by a role that sees none of its settings.
    show: () => key === 'whitelists' || visibleGroups.value.has(key),
    view: () => html`<${SettingsGroup} groupKey=${key} key=${key} />`,
  })),
  { path: 'users', label: t('nav.users'), view: () => html`<${Users} />` },
  { path: 'transactions', label: t('nav.transactions'), view: () => html`<${Transactions} />` },
  { path: 'messages', label: t('nav.messages'), badge: true, view: () => html`<${Messages} />` },
  { path: 'events', label: t('nav.events'), show: () => roleAtLeast(account.value.role, 'operator'), view: () => html`<${Events} />` },
  { path: 'accounts', label: t('nav.accounts'), show: () => roleAtLeast(account.value.role, 'operator'), view: () => html`<${Accounts} />` },
  { path: 'service', label: t('nav.service'), show: () => roleAtLeast(account.value.role, 'installer'), view: () => html`<${FieldService} />` },
  { path: 'updates', label: t('nav.updates'), show: () => roleAtLeast(account.value.role, 'installer'), view: () => html`<${Updates} />` },
]);

function Nav({ open, onNavigate }) {
  const views = VIEWS.value.filter((v) => !v.show || v.show());
  const count = messages.value.length;
  const item = (v) =>
    html`<li>
      <a href=${`#/${v.path}`} aria-current=${route.value === v.path ? 'page' : undefined} onClick=${onNavigate}>
        ${v.label}${v.badge && count > 0 && html` <span class="badge" aria-label=${t('nav.messageCount', { count })}>${count}</span>`}
      </a>
    </li>`;
  return html`<nav id="nav" aria-label=${t('nav.label')} class=${open ? 'open' : ''}>
    <ul>
      ${views
        .filter((v) => !v.settings)
        .slice(0, 1)
        .map(item)}
    </ul>
    <h2 class="nav-heading">${t('nav.settings')}</h2>
    <ul>
      ${views.filter((v) => v.settings).map(item)}
    </ul>
    <h2 class="nav-heading">${t('nav.operation')}</h2>
    <ul>
      ${views
        .filter((v) => !v.settings)
        .slice(1)
        .map(item)}
    </ul>
  </nav>`;
}

function RebootBanner() {
  const [error, setError] = useState(null);
  if (restarting.value) return html`<div class="banner" role="status">${t('reboot.restarting')}</div>`;
  if (!rebootRequired.value) return null;
  const may = roleAtLeast(account.value.role, 'operator');
  const names = rebootPending.value.map((k) => (fieldsByKey.value.get(k) || { label: k }).label);
  return html`<div class="banner" role="region" aria-label=${t('reboot.label')}>
    <p>${t('reboot.text')} ${may ? '' : t('reboot.askOperator')}</p>
    ${names.length > 0 && html`<p id="reboot-pending">${t('reboot.pending', { names: names.join(', ') })}</p>`}
    ${
      may &&
      html`<${ConfirmButton}
        label=${t('reboot.restart')}
        question=${t('reboot.confirm')}
        onConfirm=${() => restartController().catch((err) => setError(refusal(err)))}
      />`
    }
    ${error && html`<p class="note error" role="alert">${error}</p>`}
  </div>`;
}

function Shell() {
  const [menuOpen, setMenuOpen] = useState(false);
  const s = account.value;
  useEffect(() => {
    loadSettings().catch(() => undefined);
    refreshMessages().catch(() => undefined);
  }, []);
  const asked = VIEWS.value.find((v) => v.path === route.value);
  // A view the role may not see says so (an address typed or bookmarked), instead of another view.
  const current =
    asked && asked.show && !asked.show()
      ? {
          view: () =>
            html`<${Heading}>${asked.label}<//>
              <p class="note warning" role="alert" id="not-allowed">${t('nav.notAllowed', { role: t(`role.${s.role}`) })}</p>`,
        }
      : asked || VIEWS.value[0];
  // While the login dialog is open the page stays as it was, out of reach (inert) until the login.
  return html`<div class="shell" inert=${!session.value}>
    <a
      class="skip"
      href="#main"
      onClick=${(e) => {
        e.preventDefault();
        document.querySelector('main h1')?.focus();
      }}
      >${t('nav.skip')}</a
    >
    <header class="top">
      <a class="brand" href="#/dashboard">${t('app.title')}</a>
      <button type="button" class="menu" aria-expanded=${menuOpen ? 'true' : 'false'} aria-controls="nav" onClick=${() => setMenuOpen(!menuOpen)}>
        ${t('nav.menu')}
      </button>
      <div class="who"><span class="user">${s.username}</span> <span class="role">(${s.role ? t(`role.${s.role}`) : ''})</span></div>
      <${LanguageSwitch} id="language" />
      <button type="button" class="logout" onClick=${() => logout()}>${t('action.logout')}</button>
    </header>
    ${offline.value && html`<div class="banner error" role="alert">${t('error.offline')}</div>`}
    <${RebootBanner} />
    <div class="layout">
      <${Nav} open=${menuOpen} onNavigate=${() => setMenuOpen(false)} />
      <main id="main">${current.view()}</main>
    </div>
  </div>`;
}

function App() {
  const who = account.value;
  if (!who) return html`<${Login} />`;
  if (session.value && session.value.mustChange) return html`<${FirstRun} />`;
  return html`<${Shell} key=${who.username} />${!session.value && html`<${LoginDialog} />`}`;
}

// Logged out (not merely interrupted): nothing of the last session stays on the page.
effect(() => {
  if (!account.value) {
    clearSettings();
    messages.value = [];
  }
});

// A session kept over a reload: does it still stand?
checkSession();

const root = document.getElementById('app');
root.textContent = ''; // the "loading" placeholder
render(html`<${App} />`, root);
