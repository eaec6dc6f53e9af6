import { declare } from './settings/types.js';

/** The log level (services/logger.ts applySetting; LOG_LEVEL wins while set). */
export const LOGGER_SETTINGS = declare({
  LogLevel: {
    label: { gb: 'Log level', de: 'Protokollstufe', nl: 'Logniveau', fr: 'Niveau de journalisation' },
    description: {
      gb: 'Detail of the controller log. Takes effect at once, unless the environment variable LOG_LEVEL is set: it wins while set (the log says so).',
      de: 'Detailgrad des Controller-Protokolls. Wirkt sofort.',
      nl: 'Detailniveau van het controllerlogboek. Werkt direct.',
      fr: 'Niveau de détail du journal du contrôleur. Prend effet immédiatement.',
    },
    type: 'enum',
    options: [
      { value: 0, label: { gb: 'error', de: 'error', nl: 'error', fr: 'error' } },
      { value: 1, label: { gb: 'warn', de: 'warn', nl: 'warn', fr: 'warn' } },
      { value: 2, label: { gb: 'info', de: 'info', nl: 'info', fr: 'info' } },
      { value: 3, label: { gb: 'debug', de: 'debug', nl: 'debug', fr: 'debug' } },
    ],
    default: 2,
    role: 'installer',
  },
});
