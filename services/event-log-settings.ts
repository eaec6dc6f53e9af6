import { EVENTS_KEPT } from './events.js';
import { declare } from './settings/types.js';

/**
 * How much of the event log the database keeps (services/events.ts, docs/events.md): a count, so its size on the SD
 * card is bounded (about 170 bytes an event), and optionally an age, for installations that must not keep logins
 * and addresses longer than a given time. Both take effect with the next event written (the change itself is one).
 */
export const EVENT_LOG_SETTINGS = declare({
  EventLogSize: {
    label: { gb: 'Events kept', de: 'Gespeicherte Ereignisse', nl: 'Bewaarde gebeurtenissen', fr: 'Événements conservés' },
    description: {
      gb: 'The event log keeps the newest this many events; older ones are deleted as new ones are written.',
      de: 'Das Ereignisprotokoll behält die neuesten so vielen Ereignisse; ältere werden gelöscht, wenn neue geschrieben werden.',
      nl: 'Het gebeurtenissenlogboek bewaart de nieuwste zoveel gebeurtenissen; oudere worden gewist wanneer nieuwe worden geschreven.',
      fr: "Le journal des événements conserve les plus récents, à concurrence de ce nombre ; les plus anciens sont supprimés à l'écriture des nouveaux.",
    },
    type: 'int',
    range: [1_000, 100_000],
    default: EVENTS_KEPT,
    role: 'operator',
  },
  EventLogMaxAge: {
    label: { gb: 'Longest kept', de: 'Höchstens aufbewahrt', nl: 'Langst bewaard', fr: 'Conservation maximale' },
    description: {
      gb: 'Events older than this many days are deleted (with the next event written); 0: no age limit, only the count.',
      de: 'Ereignisse älter als so viele Tage werden gelöscht (mit dem nächsten geschriebenen Ereignis); 0: keine Altersgrenze, nur die Anzahl.',
      nl: 'Gebeurtenissen ouder dan zoveel dagen worden gewist (met de volgende geschreven gebeurtenis); 0: geen leeftijdsgrens, alleen het aantal.',
      fr: "Les événements de plus de ce nombre de jours sont supprimés (avec le prochain événement écrit) ; 0 : pas de limite d'âge, seulement le nombre.",
    },
    type: 'int',
    range: [0, 3650],
    default: 0,
    unit: 'd',
    role: 'operator',
  },
});
