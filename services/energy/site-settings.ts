import { declare, onOff } from '../settings/types.js';
import { TOPIC } from '../mqtt/settings.js';
import { SITE_MAX_CHARGERS, SITE_MIN_CHARGERS } from './site-share.js';

/**
 * The settings of a site whose chargers share one grid connection (Load Management › Site; docs/energy.md, "Site").
 * The broker is the one of Backend › MQTT (URL, user, password, MQTT_CA_FILE). Every change takes effect at once.
 */

const SITE_ON = [{ name: 'SiteSharing', value: [1] }];

export const SITE_SETTINGS = declare({
  SiteSharing: onOff({
    label: { gb: 'Site sharing', de: 'Standort-Lastverteilung', nl: 'Locatiedeling', fr: 'Partage du site' },
    description: {
      gb: 'On: the chargers with the same site name on the MQTT broker share one grid connection, without a master.',
      de: 'Ein: Die Ladepunkte mit demselben Standortnamen am MQTT-Broker teilen sich einen Netzanschluss, ohne Master.',
      nl: 'Aan: de laadpunten met dezelfde locatienaam op de MQTT-broker delen één netaansluiting, zonder master.',
      fr: 'Activé : les points de charge portant le même nom de site sur le broker MQTT partagent un raccordement, sans maître.',
    },
    default: 0,
    role: 'installer',
  }),
  SiteName: {
    label: { gb: 'Site name', de: 'Standortname', nl: 'Locatienaam', fr: 'Nom du site' },
    description: {
      gb: 'The chargers of one site use the same name; it is the MQTT topic their demands are published under.',
      de: 'Die Ladepunkte eines Standorts verwenden denselben Namen; unter diesem MQTT-Topic veröffentlichen sie ihren Bedarf.',
      nl: 'De laadpunten van één locatie gebruiken dezelfde naam; het is het MQTT-topic waaronder ze hun vraag publiceren.',
      fr: 'Les points de charge d’un site utilisent le même nom ; c’est le topic MQTT sous lequel ils publient leur demande.',
    },
    type: 'string',
    length: [1, 128],
    pattern: TOPIC,
    hint: {
      gb: 'topic levels separated by "/", without "+", "#", spaces, empty levels or a leading "$"',
      de: 'Topic-Ebenen, getrennt durch "/", ohne "+", "#", Leerzeichen, leere Ebenen oder ein führendes "$"',
      nl: 'topic-niveaus gescheiden door "/", zonder "+", "#", spaties, lege niveaus of een "$" aan het begin',
      fr: 'des niveaux de topic séparés par "/", sans "+", "#", espaces, niveaux vides ni "$" initial',
    },
    default: 'charge-controller-site',
    role: 'installer',
    parents: SITE_ON,
  },
  SiteLimit: {
    label: { gb: 'Site limit per line', de: 'Standortgrenze je Leiter', nl: 'Locatielimiet per fase', fr: 'Limite du site par phase' },
    description: {
      gb: 'The current the whole site may draw on L1, L2, L3 (main fuse or subscribed capacity, less a margin for loads no grid meter shows).',
      de: 'Der Strom, den der Standort auf L1, L2, L3 ziehen darf (Hauptsicherung oder vereinbarte Leistung, abzüglich Reserve für Lasten ohne Netzzähler).',
      nl: 'De stroom die de locatie op L1, L2, L3 mag afnemen (hoofdzekering of gecontracteerd vermogen, min een marge voor lasten zonder netmeter).',
      fr: 'Le courant que le site peut tirer sur L1, L2, L3 (fusible principal ou puissance souscrite, moins une marge pour les charges sans compteur réseau).',
    },
    type: 'triple',
    range: [6, 1000],
    default: [32, 32, 32],
    unit: 'A',
    role: 'installer',
    parents: SITE_ON,
  },
  SiteChargers: {
    label: { gb: 'Chargers installed', de: 'Installierte Ladepunkte', nl: 'Geïnstalleerde laadpunten', fr: 'Points de charge installés' },
    description: {
      gb: 'The chargers on this site: without the broker each falls back to the site limit divided by at least this many.',
      de: 'Die Ladepunkte dieses Standorts: ohne Broker fällt jeder auf die Standortgrenze geteilt durch mindestens so viele zurück.',
      nl: 'De laadpunten op deze locatie: zonder broker valt elk terug op de locatielimiet gedeeld door minstens zoveel.',
      fr: 'Les points de charge de ce site : sans broker, chacun se replie sur la limite du site divisée par au moins ce nombre.',
    },
    type: 'int',
    range: [SITE_MIN_CHARGERS, SITE_MAX_CHARGERS],
    default: SITE_MIN_CHARGERS,
    role: 'installer',
    parents: SITE_ON,
  },
  SitePriority: {
    label: { gb: 'Priority on the site', de: 'Priorität am Standort', nl: 'Prioriteit op de locatie', fr: 'Priorité sur le site' },
    description: {
      gb: 'Chargers with a higher priority are served first; among equal ones, the vehicle that arrived first.',
      de: 'Ladepunkte mit höherer Priorität werden zuerst bedient; unter gleichen das zuerst angekommene Fahrzeug.',
      nl: 'Laadpunten met een hogere prioriteit worden eerst bediend; bij gelijke het voertuig dat het eerst aankwam.',
      fr: 'Les points de charge de priorité plus haute sont servis d’abord ; à égalité, le véhicule arrivé le premier.',
    },
    type: 'int',
    range: [0, 9],
    default: 0,
    role: 'installer',
    parents: SITE_ON,
  },
  SiteFairness: {
    label: { gb: 'Sharing', de: 'Aufteilung', nl: 'Verdeling', fr: 'Répartition' },
    description: {
      gb: 'Equal: above 6 A each, the rest is shared equally. In order: each is filled to its demand in the order of service.',
      de: 'Gleich: über 6 A je Ladepunkt wird der Rest gleich geteilt. Der Reihe nach: jeder bis zu seinem Bedarf, in der Bedienreihenfolge.',
      nl: 'Gelijk: boven 6 A per laadpunt wordt de rest gelijk verdeeld. Op volgorde: elk tot zijn vraag, in de volgorde van bediening.',
      fr: 'Égale : au-delà de 6 A chacun, le reste est partagé également. Dans l’ordre : chacun jusqu’à sa demande, dans l’ordre de service.',
    },
    type: 'enum',
    options: [
      { value: 0, label: { gb: 'Equal', de: 'Gleich', nl: 'Gelijk', fr: 'Égale' } },
      { value: 1, label: { gb: 'In order', de: 'Der Reihe nach', nl: 'Op volgorde', fr: 'Dans l’ordre' } },
    ],
    default: 0,
    role: 'installer',
    parents: SITE_ON,
  },
});
