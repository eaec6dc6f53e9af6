import { declare, onOff } from '../settings/types.js';

/** The MQTT settings (Backend › MQTT; docs/mqtt.md: topics, payloads, commands, discovery). Every change takes effect at once. */

/** MQTT topic levels: no wildcard (`+`, `#`), no empty level, no leading `$` (broker topics), no white space. */
export const TOPIC = /^(?!\$)[^\s+#/]+(\/[^\s+#/]+)*$/;
const MQTT_ON = [{ name: 'MqttEnabled', value: [1] }];
const MQTT_CONTROL = [...MQTT_ON, { name: 'MqttControl', value: [1] }];
const MQTT_LOAD = [...MQTT_CONTROL, { name: 'MqttLoadManagement', value: [1] }];
const MQTT_DISCOVERY = [...MQTT_ON, { name: 'MqttDiscovery', value: [1] }];

export const MQTT_SETTINGS = declare({
  MqttEnabled: onOff({
    label: { gb: 'MQTT', de: 'MQTT', nl: 'MQTT', fr: 'MQTT' },
    description: {
      gb: 'Publish the state to an MQTT broker and take commands from it (Home Assistant, evcc, Node-RED).',
      de: 'Den Zustand an einen MQTT-Broker senden und Befehle von ihm annehmen (Home Assistant, evcc, Node-RED).',
      nl: 'De toestand naar een MQTT-broker publiceren en er opdrachten van aannemen (Home Assistant, evcc, Node-RED).',
      fr: "Publier l'état sur un broker MQTT et en accepter des commandes (Home Assistant, evcc, Node-RED).",
    },
    default: 0,
    role: 'operator',
  }),
  MqttUrl: {
    label: { gb: 'Broker URL', de: 'Broker-URL', nl: 'Broker-URL', fr: 'URL du broker' },
    description: {
      gb: 'mqtt://host:port, or mqtts://host:port for TLS (port 1883 and 8883 by default). User and password are set below, not in the URL.',
      de: 'mqtt://host:port oder mqtts://host:port für TLS (standardmäßig Port 1883 bzw. 8883). Benutzer und Passwort werden unten eingestellt, nicht in der URL.',
      nl: 'mqtt://host:poort, of mqtts://host:poort voor TLS (standaard poort 1883 en 8883). Gebruiker en wachtwoord stelt u hieronder in, niet in de URL.',
      fr: "mqtt://hôte:port, ou mqtts://hôte:port pour TLS (ports 1883 et 8883 par défaut). L'utilisateur et le mot de passe se règlent ci-dessous, pas dans l'URL.",
    },
    type: 'string',
    length: [0, 255],
    // A broker URL without credentials (they are the user and password settings) and without a path.
    pattern: /^$|^mqtts?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:(6553[0-5]|655[0-2]\d|65[0-4]\d\d|6[0-4]\d{3}|[1-5]\d{4}|[1-9]\d{0,3}))?\/?$/,
    hint: {
      gb: 'empty or an mqtt:// or mqtts:// URL with a host and an optional port, without user, password or path',
      de: 'leer oder eine mqtt://- bzw. mqtts://-URL mit Host und optionalem Port, ohne Benutzer, Passwort oder Pfad',
      nl: 'leeg of een mqtt://- of mqtts://-URL met een host en een optionele poort, zonder gebruiker, wachtwoord of pad',
      fr: 'vide ou une URL mqtt:// ou mqtts:// avec un hôte et un port facultatif, sans utilisateur, mot de passe ni chemin',
    },
    default: '',
    role: 'operator',
    parents: MQTT_ON,
  },
  MqttUsername: {
    label: { gb: 'User name', de: 'Benutzername', nl: 'Gebruikersnaam', fr: "Nom d'utilisateur" },
    description: {
      gb: 'User name at the broker; empty: none.',
      de: 'Benutzername beim Broker; leer: keiner.',
      nl: 'Gebruikersnaam bij de broker; leeg: geen.',
      fr: "Nom d'utilisateur auprès du broker ; vide : aucun.",
    },
    type: 'string',
    length: [0, 255],
    default: '',
    role: 'operator',
    parents: MQTT_ON,
  },
  MqttPassword: {
    label: { gb: 'Password', de: 'Passwort', nl: 'Wachtwoord', fr: 'Mot de passe' },
    description: {
      gb: 'Password at the broker. Write-only: it is never shown, logged or published.',
      de: 'Passwort beim Broker. Nur schreibbar: Es wird nie angezeigt, protokolliert oder veröffentlicht.',
      nl: 'Wachtwoord bij de broker. Alleen-schrijven: het wordt nooit getoond, gelogd of gepubliceerd.',
      fr: "Mot de passe auprès du broker. En écriture seule : il n'est jamais affiché, journalisé ni publié.",
    },
    type: 'string',
    length: [0, 255],
    default: '',
    role: 'operator',
    parents: MQTT_ON,
    writeOnly: true,
  },
  MqttClientId: {
    label: { gb: 'Client ID', de: 'Client-ID', nl: 'Client-ID', fr: 'Identifiant client' },
    description: {
      gb: 'Client identifier at the broker; empty: charge-controller- followed by the serial number.',
      de: 'Client-Kennung beim Broker; leer: charge-controller- gefolgt von der Seriennummer.',
      nl: 'Client-ID bij de broker; leeg: charge-controller- gevolgd door het serienummer.',
      fr: 'Identifiant du client auprès du broker ; vide : charge-controller- suivi du numéro de série.',
    },
    type: 'string',
    length: [0, 64],
    pattern: /^[\x21-\x7e]*$/,
    hint: {
      gb: 'printable ASCII characters without spaces',
      de: 'druckbare ASCII-Zeichen ohne Leerzeichen',
      nl: 'afdrukbare ASCII-tekens zonder spaties',
      fr: 'des caractères ASCII imprimables sans espaces',
    },
    default: '',
    role: 'operator',
    parents: MQTT_ON,
  },
  MqttBaseTopic: {
    label: { gb: 'Base topic', de: 'Basis-Topic', nl: 'Basistopic', fr: 'Topic de base' },
    description: {
      gb: 'Every topic of this charger starts with it; give each charger on a broker its own.',
      de: 'Jedes Topic dieses Ladepunkts beginnt damit; jeder Ladepunkt an einem Broker braucht ein eigenes.',
      nl: 'Elk topic van dit laadpunt begint ermee; geef elk laadpunt op een broker een eigen.',
      fr: 'Chaque topic de ce point de charge commence ainsi ; donnez à chaque point de charge du broker le sien.',
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
    default: 'charge-controller',
    role: 'operator',
    parents: MQTT_ON,
  },
  MqttQos: {
    label: { gb: 'Quality of service', de: 'Dienstgüte (QoS)', nl: 'Servicekwaliteit (QoS)', fr: 'Qualité de service (QoS)' },
    description: {
      gb: 'MQTT QoS of the published state, the discovery messages and the subscriptions.',
      de: 'MQTT-QoS des veröffentlichten Zustands, der Discovery-Nachrichten und der Abonnements.',
      nl: 'MQTT-QoS van de gepubliceerde toestand, de discoveryberichten en de abonnementen.',
      fr: "QoS MQTT de l'état publié, des messages de découverte et des abonnements.",
    },
    type: 'enum',
    options: [
      { value: 0, label: { gb: 'At most once (0)', de: 'Höchstens einmal (0)', nl: 'Hoogstens één keer (0)', fr: 'Au plus une fois (0)' } },
      { value: 1, label: { gb: 'At least once (1)', de: 'Mindestens einmal (1)', nl: 'Minstens één keer (1)', fr: 'Au moins une fois (1)' } },
      { value: 2, label: { gb: 'Exactly once (2)', de: 'Genau einmal (2)', nl: 'Precies één keer (2)', fr: 'Exactement une fois (2)' } },
    ],
    default: 1,
    role: 'operator',
    parents: MQTT_ON,
  },
  MqttRetain: onOff({
    label: { gb: 'Retain state', de: 'Zustand behalten (retain)', nl: 'Toestand bewaren (retain)', fr: "Conserver l'état (retain)" },
    description: {
      gb: 'On: the broker keeps the last state for new subscribers. The status and discovery messages are always retained.',
      de: 'Ein: Der Broker behält den letzten Zustand für neue Abonnenten. Status- und Discovery-Nachrichten werden immer behalten.',
      nl: 'Aan: de broker bewaart de laatste toestand voor nieuwe abonnees. Status- en discoveryberichten worden altijd bewaard.',
      fr: "Activé : le broker conserve le dernier état pour les nouveaux abonnés. Les messages d'état de connexion et de découverte sont toujours conservés.",
    },
    default: 1,
    role: 'operator',
    parents: MQTT_ON,
  }),
  MqttInterval: {
    label: {
      gb: 'Meter publish interval',
      de: 'Sendeintervall der Zählerwerte',
      nl: 'Publicatie-interval meterwaarden',
      fr: 'Intervalle de publication des mesures',
    },
    description: {
      gb: 'Meter values (power, energy, currents, temperature, duration) are published at most this often; states at once.',
      de: 'Zählerwerte (Leistung, Energie, Ströme, Temperatur, Dauer) werden höchstens so oft veröffentlicht; Zustände sofort.',
      nl: 'Meterwaarden (vermogen, energie, stromen, temperatuur, duur) worden hoogstens zo vaak gepubliceerd; toestanden direct.',
      fr: 'Les mesures (puissance, énergie, courants, température, durée) sont publiées au plus à cette fréquence ; les états immédiatement.',
    },
    type: 'int',
    range: [1, 3600],
    default: 10,
    unit: 's',
    role: 'operator',
    parents: MQTT_ON,
  },
  MqttPublishTagIds: onOff({
    label: { gb: 'Publish tag ids', de: 'Tag-IDs veröffentlichen', nl: 'Tag-ID’s publiceren', fr: 'Publier les identifiants de badge' },
    description: {
      gb: 'On: the tag id and user id of the transaction are published. Off (default): never, as they identify people.',
      de: 'Ein: Tag-ID und Benutzer-ID der Transaktion werden veröffentlicht. Aus (Standard): nie, da sie Personen identifizieren.',
      nl: 'Aan: de tag-ID en gebruikers-ID van de transactie worden gepubliceerd. Uit (standaard): nooit, omdat ze personen identificeren.',
      fr:
        "Activé : l'identifiant du badge et celui de l'utilisateur de la transaction sont " +
        'publiés. Désactivé (par défaut) : jamais, car ils identifient des personnes.',
    },
    default: 0,
    role: 'operator',
    parents: MQTT_ON,
  }),
  MqttControl: onOff({
    label: { gb: 'Control over MQTT', de: 'Steuerung über MQTT', nl: 'Bediening via MQTT', fr: 'Commande par MQTT' },
    description: {
      gb: 'On: commands on <base topic>/set/... are carried out (charging enabled, maximum current, load limit). Off: they are refused.',
      de: 'Ein: Befehle auf <Basis-Topic>/set/... werden ausgeführt (Laden aktiviert, Maximalstrom, Lastgrenze). Aus: Sie werden abgelehnt.',
      nl: 'Aan: opdrachten op <basistopic>/set/... worden uitgevoerd (laden ingeschakeld, maximale stroom, lastlimiet). Uit: ze worden geweigerd.',
      fr:
        'Activé : les commandes sur <topic de base>/set/... sont exécutées (charge ' +
        'activée, courant maximal, limite de charge). Désactivé : elles sont refusées.',
    },
    default: 0,
    role: 'operator',
    parents: MQTT_ON,
  }),
  MqttLoadManagement: onOff({
    label: { gb: 'Load limit over MQTT', de: 'Lastgrenze über MQTT', nl: 'Lastlimiet via MQTT', fr: 'Limite de charge par MQTT' },
    description: {
      gb:
        'On: the current limit from <base topic>/set/LoadLimit applies; without a new one within ' +
        'the refresh time (and after a start, until the first), the fallback current applies.',
      de:
        'Ein: Die Stromgrenze von <Basis-Topic>/set/LoadLimit gilt; ohne neue innerhalb ' +
        'der Auffrischzeit (und nach einem Start bis zur ersten) gilt der Rückfallstrom.',
      nl:
        'Aan: de stroomlimiet van <basistopic>/set/LoadLimit geldt; zonder nieuwe binnen ' +
        'de verversingstijd (en na een start tot de eerste) geldt de terugvalstroom.',
      fr:
        "Activé : la limite de courant de <topic de base>/set/LoadLimit s'applique ; sans nouvelle limite dans le " +
        "délai de rafraîchissement (et après un démarrage, jusqu'à la première), le courant de repli s'applique.",
    },
    default: 0,
    role: 'operator',
    parents: MQTT_CONTROL,
  }),
  MqttLoadLimitTimeout: {
    label: {
      gb: 'Load limit refresh time',
      de: 'Auffrischzeit der Lastgrenze',
      nl: 'Verversingstijd lastlimiet',
      fr: 'Délai de rafraîchissement de la limite',
    },
    description: {
      gb: 'A load limit not renewed within this time is stale: the fallback current applies.',
      de: 'Eine Lastgrenze, die nicht innerhalb dieser Zeit erneuert wird, ist veraltet: Der Rückfallstrom gilt.',
      nl: 'Een lastlimiet die niet binnen deze tijd wordt vernieuwd, is verouderd: de terugvalstroom geldt.',
      fr: "Une limite de charge non renouvelée dans ce délai est périmée : le courant de repli s'applique.",
    },
    type: 'int',
    range: [5, 3600],
    default: 60,
    unit: 's',
    role: 'operator',
    parents: MQTT_LOAD,
  },
  MqttLoadLimitFallback: {
    label: { gb: 'Fallback current', de: 'Rückfallstrom', nl: 'Terugvalstroom', fr: 'Courant de repli' },
    description: {
      gb: 'The current limit while no fresh load limit is known; below 6 A charging pauses.',
      de: 'Die Stromgrenze, solange keine aktuelle Lastgrenze bekannt ist; unter 6 A pausiert das Laden.',
      nl: 'De stroomlimiet zolang er geen actuele lastlimiet bekend is; onder 6 A pauzeert het laden.',
      fr: "La limite de courant tant qu'aucune limite de charge récente n'est connue ; en dessous de 6 A, la charge est suspendue.",
    },
    type: 'int',
    range: [0, 32],
    default: 6,
    unit: 'A',
    role: 'operator',
    parents: MQTT_LOAD,
  },
  MqttDiscovery: onOff({
    label: { gb: 'Home Assistant discovery', de: 'Home-Assistant-Discovery', nl: 'Home Assistant-discovery', fr: 'Découverte Home Assistant' },
    description: {
      gb: 'On: the charger announces its entities to Home Assistant (and again when Home Assistant starts). Off: the announcement is withdrawn.',
      de: 'Ein: Der Ladepunkt meldet seine Entitäten bei Home Assistant an (und erneut, wenn Home Assistant startet). Aus: Die Anmeldung wird zurückgezogen.',
      nl: 'Aan: het laadpunt meldt zijn entiteiten aan bij Home Assistant (en opnieuw wanneer Home Assistant start). Uit: de aanmelding wordt ingetrokken.',
      fr: 'Activé : le point de charge annonce ses entités à Home Assistant (et à nouveau au démarrage de Home Assistant). Désactivé : l’annonce est retirée.',
    },
    default: 1,
    role: 'operator',
    parents: MQTT_ON,
  }),
  MqttDiscoveryPrefix: {
    label: { gb: 'Discovery prefix', de: 'Discovery-Präfix', nl: 'Discoveryprefix', fr: 'Préfixe de découverte' },
    description: {
      gb: 'Topic prefix of Home Assistant discovery.',
      de: 'Topic-Präfix der Home-Assistant-Discovery.',
      nl: 'Topicprefix van Home Assistant-discovery.',
      fr: 'Préfixe de topic de la découverte Home Assistant.',
    },
    type: 'string',
    length: [1, 64],
    pattern: TOPIC,
    hint: {
      gb: 'topic levels separated by "/", without "+", "#", spaces, empty levels or a leading "$"',
      de: 'Topic-Ebenen, getrennt durch "/", ohne "+", "#", Leerzeichen, leere Ebenen oder ein führendes "$"',
      nl: 'topic-niveaus gescheiden door "/", zonder "+", "#", spaties, lege niveaus of een "$" aan het begin',
      fr: 'des niveaux de topic séparés par "/", sans "+", "#", espaces, niveaux vides ni "$" initial',
    },
    default: 'homeassistant',
    role: 'operator',
    parents: MQTT_DISCOVERY,
  },
});
