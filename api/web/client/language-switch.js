import { useState } from 'preact/hooks';
import { session } from './api.js';
import { lang, LANGUAGES, setLanguage, t } from './i18n.js';
import { loadSettings, saveSettings } from './settings-store.js';
import { html, refusal } from './ui.js';

/**
 * The language switch. Logged in it writes the controller's Language setting (every role may), so the page, the
 * app and the API's texts change together; before login it changes this page only.
 */
export function LanguageSwitch({ id }) {
  const [error, setError] = useState(null);
  async function choose(event) {
    const key = event.currentTarget.value;
    setError(null);
    if (!session.value) {
      setLanguage(key);
      return;
    }
    try {
      await saveSettings([{ key: 'Language', value: LANGUAGES.find((l) => l.key === key).value }]);
      await loadSettings();
    } catch (err) {
      setError(refusal(err));
    }
  }
  return html`<div class="language-switch">
    <label for=${id}>${t('language.label')}</label>
    <select id=${id} value=${lang.value} onChange=${choose}>
      ${LANGUAGES.map((l) => html`<option value=${l.key} lang=${l.tag}>${l.label}</option>`)}
    </select>
    ${error && html`<span class="note error" role="alert">${error}</span>`}
  </div>`;
}
