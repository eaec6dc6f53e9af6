import { declare } from './settings/types.js';
import { isTimeZone } from './time-zone.js';

/** The controller's time zone (services/time-zone.ts): the one source of every local time it shows or counts in. */
export const TIME_ZONE_SETTINGS = declare({
  TimeZone: {
    label: { gb: 'Time zone', de: 'Zeitzone', nl: 'Tijdzone', fr: 'Fuseau horaire' },
    description: {
      gb:
        'Time zone of the charger (an IANA name such as Europe/Berlin; empty: the operating system’s). Local days of the energy history, ' +
        'schedules and departure times, and the times the web interface shows and exports are in this zone. Takes effect at once.',
      de:
        'Zeitzone des Ladegeräts (ein IANA-Name wie Europe/Berlin; leer: die des Betriebssystems). Die Tage der Energiehistorie, ' +
        'Zeitpläne und Abfahrtszeiten sowie die Zeiten, die die Weboberfläche zeigt und exportiert, gelten in dieser Zone. Wirkt sofort.',
      nl:
        'Tijdzone van de lader (een IANA-naam zoals Europe/Amsterdam; leeg: die van het besturingssysteem). Dagen van de energiegeschiedenis, ' +
        'schema’s en vertrektijden, en de tijden die de webinterface toont en exporteert, gelden in deze zone. Werkt direct.',
      fr:
        'Fuseau horaire de la borne (un nom IANA tel que Europe/Paris ; vide : celui du système). Les jours de l’historique d’énergie, ' +
        'les horaires, les heures de départ et les heures affichées et exportées par l’interface web suivent ce fuseau. Prend effet immédiatement.',
    },
    type: 'string',
    length: [0, 64],
    pattern: /^$|^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/,
    accepts: (name: string) => name === '' || isTimeZone(name),
    hint: {
      gb: 'empty or a time zone name of the IANA database such as Europe/Berlin',
      de: 'leer oder ein Zeitzonenname der IANA-Datenbank wie Europe/Berlin',
      nl: 'leeg of een tijdzonenaam uit de IANA-database zoals Europe/Amsterdam',
      fr: 'vide ou un nom de fuseau de la base IANA tel que Europe/Paris',
    },
    default: '',
    role: 'user',
    writeRole: 'operator',
  },
});
