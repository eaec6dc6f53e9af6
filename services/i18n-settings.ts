import { LANGUAGES } from './i18n.js';
import { declare } from './settings/types.js';

/** The language of the whole controller (services/i18n.ts). */
export const I18N_SETTINGS = declare({
  Language: {
    label: { gb: 'Language', de: 'Sprache', nl: 'Taal', fr: 'Langue' },
    description: {
      gb: 'Language of the web interface and the app.',
      de: 'Sprache der Weboberfläche und der App.',
      nl: 'Taal van de webinterface en de app.',
      fr: "Langue de l'interface web et de l'application.",
    },
    type: 'enum',
    // Each language's name reads the same in every language.
    options: LANGUAGES.map((l) => ({ value: l.value, label: { gb: l.label, de: l.label, nl: l.label, fr: l.label } })),
    default: 0,
    role: 'user',
    app: true,
  },
});
