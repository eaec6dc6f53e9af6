import { TOPIC } from '../mqtt/settings.js';
import { declare } from '../settings/types.js';

/**
 * The settings of the energy inputs (Load Management › Energy inputs; docs/energy.md, Inputs): where the grid
 * connection point's power and the grid operator's limit come from. Every change takes effect at once.
 */

/** `GridPowerSource` values. */
export const GRID_POWER_SOURCES = { off: 0, modbus: 1, mqtt: 2, http: 3 } as const;
/** `GridOperatorSource` values. */
export const GRID_OPERATOR_SOURCES = { off: 0, mqtt: 1, http: 2, gpio: 3 } as const;

const topicHint = {
  gb: 'empty or topic levels separated by "/", without "+", "#", spaces, empty levels or a leading "$"',
  de: 'leer oder Topic-Ebenen, getrennt durch "/", ohne "+", "#", Leerzeichen, leere Ebenen oder ein führendes "$"',
  nl: 'leeg of topic-niveaus gescheiden door "/", zonder "+", "#", spaties, lege niveaus of een "$" aan het begin',
  fr: 'vide ou des niveaux de topic séparés par "/", sans "+", "#", espaces, niveaux vides ni "$" initial',
} as const;
const topicPattern = new RegExp(`^$|${TOPIC.source}`);

export const ENERGY_INPUT_SETTINGS = declare({
  GridPowerSource: {
    label: { gb: 'Grid power input', de: 'Eingang Netzleistung', nl: 'Ingang netvermogen', fr: 'Entrée puissance réseau' },
    description: {
      gb:
        'Where the power at the grid connection point comes from (import positive): a second SDM630 on the meter bus, an MQTT ' +
        'topic, or pushed over HTTP (POST /v1/energy/grid).',
      de:
        'Woher die Leistung am Netzanschlusspunkt kommt (Bezug positiv): ein zweiter SDM630 am Zählerbus, ein MQTT-Topic oder per ' +
        'HTTP gesendet (POST /v1/energy/grid).',
      nl:
        'Waar het vermogen op het netaansluitpunt vandaan komt (afname positief): een tweede SDM630 op de meterbus, een ' +
        'MQTT-topic of via HTTP verstuurd (POST /v1/energy/grid).',
      fr:
        "D'où vient la puissance au point de raccordement (soutirage positif) : un second SDM630 sur le bus du compteur, un topic " +
        'MQTT ou envoyée en HTTP (POST /v1/energy/grid).',
    },
    type: 'enum',
    options: [
      { value: 0, label: { gb: 'None', de: 'Keiner', nl: 'Geen', fr: 'Aucune' } },
      {
        value: 1,
        label: {
          gb: 'Grid meter (SDM630, Modbus)',
          de: 'Netzzähler (SDM630, Modbus)',
          nl: 'Netmeter (SDM630, Modbus)',
          fr: 'Compteur réseau (SDM630, Modbus)',
        },
      },
      { value: 2, label: { gb: 'MQTT topic', de: 'MQTT-Topic', nl: 'MQTT-topic', fr: 'Topic MQTT' } },
      { value: 3, label: { gb: 'HTTP push', de: 'HTTP-Push', nl: 'HTTP-push', fr: 'Envoi HTTP' } },
    ],
    default: 0,
    role: 'installer',
  },
  GridMeterAddress: {
    label: { gb: 'Grid meter address', de: 'Adresse Netzzähler', nl: 'Adres netmeter', fr: 'Adresse du compteur réseau' },
    description: {
      gb: "Modbus address of the grid meter on the charging meter's RS-485 bus (the charging meter has its own, 1 by default).",
      de: 'Modbus-Adresse des Netzzählers am RS-485-Bus des Ladezählers (der Ladezähler hat seine eigene, standardmäßig 1).',
      nl: 'Modbus-adres van de netmeter op de RS-485-bus van de laadmeter (de laadmeter heeft een eigen adres, standaard 1).',
      fr: 'Adresse Modbus du compteur réseau sur le bus RS-485 du compteur de charge (celui-ci a la sienne, 1 par défaut).',
    },
    type: 'int',
    range: [1, 247],
    default: 2,
    role: 'installer',
    parents: [{ name: 'GridPowerSource', value: [GRID_POWER_SOURCES.modbus] }],
  },
  GridPowerTopic: {
    label: { gb: 'Grid power topic', de: 'Topic Netzleistung', nl: 'Topic netvermogen', fr: 'Topic puissance réseau' },
    description: {
      gb: 'Full MQTT topic carrying the grid power in W (import positive): a number, [L1, L2, L3] or {"powerW": …}.',
      de: 'Vollständiges MQTT-Topic mit der Netzleistung in W (Bezug positiv): eine Zahl, [L1, L2, L3] oder {"powerW": …}.',
      nl: 'Volledig MQTT-topic met het netvermogen in W (afname positief): een getal, [L1, L2, L3] of {"powerW": …}.',
      fr: 'Topic MQTT complet portant la puissance réseau en W (soutirage positif) : un nombre, [L1, L2, L3] ou {"powerW": …}.',
    },
    type: 'string',
    length: [0, 255],
    pattern: topicPattern,
    hint: topicHint,
    default: '',
    role: 'installer',
    parents: [{ name: 'GridPowerSource', value: [GRID_POWER_SOURCES.mqtt] }],
  },
  GridOperatorSource: {
    label: {
      gb: 'Grid operator limit input',
      de: 'Eingang Netzbetreiber-Limit',
      nl: 'Ingang netbeheerderslimiet',
      fr: 'Entrée limite du gestionnaire de réseau',
    },
    description: {
      gb:
        "Where the grid operator's limit comes from (§14a EnWG): an MQTT topic, HTTP (POST /v1/energy/grid-operator) or a " +
        "ripple-control receiver's contact. Without a heartbeat the failsafe limit applies.",
      de:
        'Woher das Limit des Netzbetreibers kommt (§14a EnWG): ein MQTT-Topic, HTTP (POST /v1/energy/grid-operator) oder der ' +
        'Kontakt eines Rundsteuerempfängers. Ohne Lebenszeichen gilt das Failsafe-Limit.',
      nl:
        'Waar de limiet van de netbeheerder vandaan komt (§14a EnWG): een MQTT-topic, HTTP (POST /v1/energy/grid-operator) of het ' +
        'contact van een rimpelspanningsontvanger. Zonder hartslag geldt de failsafe-limiet.',
      fr:
        "D'où vient la limite du gestionnaire de réseau (§14a EnWG) : un topic MQTT, HTTP (POST /v1/energy/grid-operator) ou le " +
        "contact d'un récepteur de télécommande centralisée. Sans signal de vie, la limite de repli s'applique.",
    },
    type: 'enum',
    options: [
      { value: 0, label: { gb: 'None', de: 'Keiner', nl: 'Geen', fr: 'Aucune' } },
      { value: 1, label: { gb: 'MQTT topic', de: 'MQTT-Topic', nl: 'MQTT-topic', fr: 'Topic MQTT' } },
      { value: 2, label: { gb: 'HTTP push', de: 'HTTP-Push', nl: 'HTTP-push', fr: 'Envoi HTTP' } },
      {
        value: 3,
        label: {
          gb: 'Ripple-control contact (GPIO)',
          de: 'Rundsteuerkontakt (GPIO)',
          nl: 'Rimpelspanningscontact (GPIO)',
          fr: 'Contact de télécommande centralisée (GPIO)',
        },
      },
    ],
    default: 0,
    role: 'installer',
  },
  GridOperatorTopic: {
    label: { gb: 'Grid operator topic', de: 'Topic Netzbetreiber', nl: 'Topic netbeheerder', fr: 'Topic gestionnaire de réseau' },
    description: {
      gb: 'Full MQTT topic carrying the limit: W as a number, {"limitW": …} or {"limitA": …} (null: unlimited). Every message is a heartbeat.',
      de: 'Vollständiges MQTT-Topic mit dem Limit: W als Zahl, {"limitW": …} oder {"limitA": …} (null: unbegrenzt). Jede Nachricht ist ein Lebenszeichen.',
      nl: 'Volledig MQTT-topic met de limiet: W als getal, {"limitW": …} of {"limitA": …} (null: onbeperkt). Elk bericht is een hartslag.',
      fr: 'Topic MQTT complet portant la limite : W en nombre, {"limitW": …} ou {"limitA": …} (null : illimitée). Chaque message est un signal de vie.',
    },
    type: 'string',
    length: [0, 255],
    pattern: topicPattern,
    hint: topicHint,
    default: '',
    role: 'installer',
    parents: [{ name: 'GridOperatorSource', value: [GRID_OPERATOR_SOURCES.mqtt] }],
  },
  GridOperatorDimmedLimit: {
    label: {
      gb: 'Dimmed limit (contact closed)',
      de: 'Gedimmtes Limit (Kontakt geschlossen)',
      nl: 'Gedimde limiet (contact gesloten)',
      fr: 'Limite réduite (contact fermé)',
    },
    description: {
      gb: "The power the charge point may draw while the ripple-control receiver's contact is closed (§14a EnWG guarantees 4.2 kW).",
      de: 'Die Leistung, die der Ladepunkt beziehen darf, solange der Kontakt des Rundsteuerempfängers geschlossen ist (§14a EnWG garantiert 4,2 kW).',
      nl: 'Het vermogen dat het laadpunt mag afnemen zolang het contact van de rimpelspanningsontvanger gesloten is (§14a EnWG garandeert 4,2 kW).',
      fr: 'La puissance que le point de charge peut prélever tant que le contact du récepteur est fermé (le §14a EnWG garantit 4,2 kW).',
    },
    type: 'int',
    range: [0, 50_000],
    default: 4_200,
    unit: 'W',
    role: 'installer',
    parents: [{ name: 'GridOperatorSource', value: [GRID_OPERATOR_SOURCES.gpio] }],
  },
  EnergyPushToken: {
    label: { gb: 'Energy push token', de: 'Token für Energie-Push', nl: 'Token voor energie-push', fr: "Jeton d'envoi d'énergie" },
    description: {
      gb:
        'Bearer token a home energy system may send instead of an installer session to POST /v1/energy/grid and ' +
        '/v1/energy/grid-operator; empty: sessions only. Write-only.',
      de:
        'Bearer-Token, das ein Energiemanagementsystem statt einer Installateur-Sitzung an POST /v1/energy/grid und ' +
        '/v1/energy/grid-operator senden darf; leer: nur Sitzungen. Nur schreibbar.',
      nl:
        'Bearer-token dat een energiebeheersysteem in plaats van een installateurssessie mag sturen naar POST /v1/energy/grid en ' +
        '/v1/energy/grid-operator; leeg: alleen sessies. Alleen schrijven.',
      fr:
        "Jeton bearer qu'un gestionnaire d'énergie peut envoyer à la place d'une session installateur à POST /v1/energy/grid et " +
        '/v1/energy/grid-operator ; vide : sessions seulement. En écriture seule.',
    },
    type: 'string',
    length: [0, 128],
    // Long enough not to be guessed over the network: at least 16 printable characters.
    pattern: /^$|^[\x21-\x7e]{16,128}$/,
    hint: {
      gb: 'empty or 16 to 128 printable characters without spaces',
      de: 'leer oder 16 bis 128 druckbare Zeichen ohne Leerzeichen',
      nl: 'leeg of 16 tot 128 afdrukbare tekens zonder spaties',
      fr: 'vide ou 16 à 128 caractères imprimables sans espaces',
    },
    default: '',
    role: 'installer',
    writeOnly: true,
  },
});
