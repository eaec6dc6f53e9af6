// The page's language. Logged in, it is the controller's Language setting (GET /v1/settings marks it active in
// ChargePointInfo.languages; the switch writes the setting, so the app and the API texts follow). Before login it
// is the one last used in this browser, else the browser's preferred one that the controller offers.
import { effect, signal } from '@preact/signals';
import { STRINGS } from './strings.js';

/** Spec 2.7's languages: `key` and `value` as the API names them, `tag` for the page, `locale` for numbers and dates. */
export const LANGUAGES = [
  { key: 'gb', value: 0, tag: 'en', locale: 'en-GB', label: 'English' },
  { key: 'de', value: 1, tag: 'de', locale: 'de-DE', label: 'Deutsch' },
  { key: 'nl', value: 2, tag: 'nl', locale: 'nl-NL', label: 'Nederlands' },
  { key: 'fr', value: 3, tag: 'fr', locale: 'fr-FR', label: 'Français' },
];

const STORAGE_KEY = 'charge-controller-language';

function initial() {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (LANGUAGES.some((l) => l.key === stored)) return stored;
  } catch {
    // storage may be disabled
  }
  for (const wanted of navigator.languages || []) {
    const found = LANGUAGES.find((l) => wanted.toLowerCase().split('-')[0] === l.tag);
    if (found) return found.key;
  }
  return 'gb';
}

export const lang = signal(initial());

export function setLanguage(key) {
  if (!LANGUAGES.some((l) => l.key === key)) return;
  lang.value = key;
  try {
    localStorage.setItem(STORAGE_KEY, key);
  } catch {
    // storage may be disabled
  }
}

/** The UI string `key` in the page's language, with `{name}` placeholders filled from `params`. */
export function t(key, params) {
  const text = STRINGS[lang.value][key] ?? STRINGS.gb[key] ?? key;
  return params ? text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m)) : text;
}

effect(() => {
  document.documentElement.lang = (LANGUAGES.find((l) => l.key === lang.value) || LANGUAGES[0]).tag;
  document.title = t('app.title');
});
