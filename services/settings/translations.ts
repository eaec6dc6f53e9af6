import { inLanguage, type LanguageKey, type Translations } from '../i18n.js';
import type { FieldDef } from './catalogue.js';
import type { LanProblem } from '../network.js';

/**
 * The settings' texts in German, Dutch and French (English is in catalogue.ts, and the dashboard's live fields in
 * dashboard.ts). Group labels are not here: spec 2.7 fixes them as an enum of English names, so they are the same
 * in every language (the web interface translates the group keys itself). A test fails when a text lacks one.
 */

type FieldTexts = { label: Translations; description: Translations; hint?: Translations };

/** The hint of the static IPv4 fields (`{default}`: the field's default, as in the English hint). */
const IPV4_HINT: Translations = { de: 'eine IPv4-Adresse wie {default}', nl: 'een IPv4-adres zoals {default}', fr: 'une adresse IPv4 telle que {default}' };

export const FIELD_TRANSLATIONS: Record<string, FieldTexts> = {
  LanMode: {
    label: { de: 'IP-Adressvergabe', nl: 'Toewijzing IP-adres', fr: "Attribution de l'adresse IP" },
    description: {
      de: 'DHCP: Der Controller bezieht seine Adresse aus dem Netzwerk. Statisch: Die unten angegebene Adresse wird verwendet.',
      nl: 'DHCP: de controller krijgt zijn adres van het netwerk. Statisch: het adres hieronder wordt gebruikt.',
      fr: "DHCP : le contrôleur obtient son adresse du réseau. Statique : l'adresse ci-dessous est utilisée.",
    },
  },
  LanIpAddress: {
    label: { de: 'Statische IP-Adresse', nl: 'Statisch IP-adres', fr: 'Adresse IP statique' },
    description: {
      de: 'IPv4-Adresse des Controllers bei statischer Vergabe.',
      nl: 'IPv4-adres van de controller bij statische toewijzing.',
      fr: 'Adresse IPv4 du contrôleur en attribution statique.',
    },
    hint: IPV4_HINT,
  },
  LanNetmask: {
    label: { de: 'Netzmaske', nl: 'Netmasker', fr: 'Masque de sous-réseau' },
    description: {
      de: 'IPv4-Netzmaske der statischen Adresse.',
      nl: 'IPv4-netmasker van het statische adres.',
      fr: "Masque de sous-réseau IPv4 de l'adresse statique.",
    },
    hint: {
      de: 'eine Netzmaske von /8 bis /30 wie {default}',
      nl: 'een netmasker van /8 tot /30 zoals {default}',
      fr: 'un masque de sous-réseau de /8 à /30 tel que {default}',
    },
  },
  LanGateway: {
    label: { de: 'Gateway', nl: 'Gateway', fr: 'Passerelle' },
    description: {
      de: 'IPv4-Adresse des Standard-Gateways für die statische Adresse.',
      nl: 'IPv4-adres van de standaardgateway voor het statische adres.',
      fr: "Adresse IPv4 de la passerelle par défaut pour l'adresse statique.",
    },
    hint: IPV4_HINT,
  },
  GsmEnabled: {
    label: { de: 'Mobilfunknetz', nl: 'Mobiel netwerk', fr: 'Réseau mobile' },
    description: {
      de: 'Verbindung zum Backend über das eingebaute Modem statt über das LAN.',
      nl: 'Verbind met de backend via de ingebouwde modem in plaats van via het LAN.',
      fr: 'Se connecter au backend par le modem intégré au lieu du réseau local.',
    },
  },
  GsmApn: {
    label: { de: 'APN', nl: 'APN', fr: 'APN' },
    description: {
      de: 'Zugangspunktname (APN) des Mobilfunkanbieters.',
      nl: 'Naam van het toegangspunt (APN) van de mobiele provider.',
      fr: "Nom du point d'accès (APN) de l'opérateur mobile.",
    },
    hint: {
      de: 'leer oder ein APN aus Buchstaben, Ziffern, "-" und Punkten wie internet.provider.de',
      nl: 'leeg of een APN van letters, cijfers, "-" en punten zoals internet.provider.nl',
      fr: 'vide ou un APN de lettres, chiffres, « - » et points tel que internet.operateur.fr',
    },
  },
  OcppEnabled: {
    label: { de: 'OCPP-Backend', nl: 'OCPP-backend', fr: 'Backend OCPP' },
    description: {
      de: 'Mit einem OCPP-1.6-Zentralsystem verbinden. Aus: Der Controller arbeitet eigenständig.',
      nl: 'Verbinden met een centraal OCPP 1.6-systeem. Uit: de controller werkt zelfstandig.',
      fr: 'Se connecter à un système central OCPP 1.6. Désactivé : le contrôleur fonctionne de manière autonome.',
    },
  },
  OcppUrl: {
    label: { de: 'URL des Zentralsystems', nl: 'URL van het centrale systeem', fr: 'URL du système central' },
    description: {
      de: 'WebSocket-URL des OCPP-Zentralsystems (ws:// oder wss://).',
      nl: 'WebSocket-URL van het centrale OCPP-systeem (ws:// of wss://).',
      fr: 'URL WebSocket du système central OCPP (ws:// ou wss://).',
    },
    hint: { de: 'leer oder eine ws://- bzw. wss://-URL', nl: 'leeg of een ws://- of wss://-URL', fr: 'vide ou une URL ws:// ou wss://' },
  },
  OcppChargeBoxId: {
    label: { de: 'Kennung der Ladestation', nl: 'Identiteit van het laadstation', fr: 'Identifiant de la borne' },
    description: {
      de: 'Kennung dieses Ladepunkts beim Zentralsystem.',
      nl: 'Identiteit van dit laadpunt bij het centrale systeem.',
      fr: 'Identifiant de ce point de charge auprès du système central.',
    },
    hint: { de: 'Buchstaben, Ziffern, ".", "_" und "-"', nl: 'letters, cijfers, ".", "_" en "-"', fr: 'lettres, chiffres, ".", "_" et "-"' },
  },
  OcppHeartbeatInterval: {
    label: { de: 'Heartbeat-Intervall', nl: 'Heartbeat-interval', fr: 'Intervalle de heartbeat' },
    description: {
      de: 'Intervall der OCPP-Heartbeats, wenn das Zentralsystem keines vorgibt.',
      nl: 'Interval van de OCPP-heartbeats als het centrale systeem er geen instelt.',
      fr: "Intervalle des heartbeats OCPP lorsque le système central n'en fixe pas.",
    },
  },
  OCPPWLEnabled: {
    label: { de: 'OCPP-Whitelist', nl: 'OCPP-whitelist', fr: 'Liste blanche OCPP' },
    description: {
      de: 'Tags aus der Whitelist akzeptieren, die das Zentralsystem sendet (lokale OCPP-Autorisierungsliste).',
      nl: 'Tags accepteren uit de whitelist die het centrale systeem stuurt (lokale OCPP-autorisatielijst).',
      fr: "Accepter les badges de la liste blanche envoyée par le système central (liste d'autorisation locale OCPP).",
    },
  },
  RFIDMode: {
    label: { de: 'RFID-Modus', nl: 'RFID-modus', fr: 'Mode RFID' },
    description: {
      de: 'Nur RFID: Der Leser liest RFID-Karten. RFID/NFC-Hybrid: Er antwortet zusätzlich Smartphones über NFC (die App).',
      nl: 'Alleen RFID: de lezer leest RFID-kaarten. RFID/NFC-hybride: hij antwoordt ook telefoons via NFC (de app).',
      fr: "RFID uniquement : le lecteur lit les cartes RFID. Hybride RFID/NFC : il répond aussi aux téléphones par NFC (l'application).",
    },
  },
  AuthTimeout: {
    label: { de: 'Autorisierungs-Zeitlimit', nl: 'Time-out autorisatie', fr: "Délai d'autorisation" },
    description: {
      de: 'Wie lange ein vor dem Einstecken vorgehaltener Tag gültig bleibt.',
      nl: 'Hoe lang een tag die vóór het aansluiten werd aangeboden geldig blijft.',
      fr: "Durée de validité d'un badge présenté avant le branchement.",
    },
  },
  FreeCharging: {
    label: { de: 'Freies Laden', nl: 'Vrij laden', fr: 'Recharge libre' },
    description: {
      de: 'Ein: Jedes Fahrzeug lädt beim Einstecken, ohne Tag.',
      nl: 'Aan: elk voertuig laadt zodra het is aangesloten, zonder tag.',
      fr: "Activé : tout véhicule se recharge dès qu'il est branché, sans badge.",
    },
  },
  FLLEnabled: {
    label: { de: 'Lokale Whitelist', nl: 'Lokale whitelist', fr: 'Liste blanche locale' },
    description: {
      de: 'Ein: Tags in der lokalen Whitelist dürfen laden. Aus: Die lokale Whitelist wird nicht verwendet.',
      nl: 'Aan: tags in de lokale whitelist mogen laden. Uit: de lokale whitelist wordt niet gebruikt.',
      fr: "Activé : les badges de la liste blanche locale peuvent charger. Désactivé : la liste blanche locale n'est pas utilisée.",
    },
  },
  MaxCurrent: {
    label: { de: 'Maximaler Strom', nl: 'Maximale stroom', fr: 'Courant maximal' },
    description: {
      de: 'Der höchste Strom je Phase, der dem Fahrzeug signalisiert wird (PWM-Tastgrad).',
      nl: 'De hoogste stroom per fase die aan het voertuig wordt gemeld (PWM-duty cycle).',
      fr: 'Le courant maximal par phase annoncé au véhicule (rapport cyclique PWM).',
    },
  },
  PhaseCurrentLimits: {
    label: { de: 'Anschlussgrenzen je Phase', nl: 'Aansluitlimieten per fase', fr: "Limites d'alimentation par phase" },
    description: {
      de: 'Grenzen der Zuleitung auf L1, L2, L3; der signalisierte Strom überschreitet nie die niedrigste.',
      nl: 'Limieten van de voeding op L1, L2, L3; de gemelde stroom komt nooit boven de laagste.',
      fr: "Limites de l'alimentation sur L1, L2, L3 ; le courant annoncé ne dépasse jamais la plus basse.",
    },
  },
  ChargingEnabled: {
    label: { de: 'Laden freigegeben', nl: 'Laden ingeschakeld', fr: 'Recharge activée' },
    description: {
      de: 'Aus: Der Ladepunkt ist nicht verfügbar; ein laufender Ladevorgang wird beendet.',
      nl: 'Uit: het laadpunt is niet beschikbaar; een lopende laadsessie wordt gestopt.',
      fr: 'Désactivé : le point de charge est indisponible ; une recharge en cours est arrêtée.',
    },
  },
  Phases: {
    label: { de: 'Phasen', nl: 'Fasen', fr: 'Phases' },
    description: {
      de: 'An Ladeanschluss und Zähler angeschlossene Phasen.',
      nl: 'Fasen aangesloten op de connector en de meter.',
      fr: 'Phases raccordées au connecteur et au compteur.',
    },
  },
  Ventilation: {
    label: { de: 'Belüftung', nl: 'Ventilatie', fr: 'Ventilation' },
    description: {
      de: 'Ein: Die Anlage ist belüftet, daher dürfen Fahrzeuge laden, die Belüftung anfordern (CP-Zustand D).',
      nl: 'Aan: de installatie wordt geventileerd, dus voertuigen die ventilatie vragen (CP-toestand D) mogen laden.',
      fr: "Activé : l'installation est ventilée, les véhicules demandant une ventilation (état CP D) peuvent donc charger.",
    },
  },
  Language: {
    label: { de: 'Sprache', nl: 'Taal', fr: 'Langue' },
    description: {
      de: 'Sprache der Weboberfläche und der App.',
      nl: 'Taal van de webinterface en de app.',
      fr: "Langue de l'interface web et de l'application.",
    },
  },
  FirmwareVersion_custom: {
    label: { de: 'Firmware-Version', nl: 'Firmwareversie', fr: 'Version du micrologiciel' },
    description: {
      de: 'Version der Controller-Firmware.',
      nl: 'Versie van de controllerfirmware.',
      fr: 'Version du micrologiciel du contrôleur.',
    },
  },
  SerialNumber_custom: {
    label: { de: 'Seriennummer', nl: 'Serienummer', fr: 'Numéro de série' },
    description: {
      de: 'Seriennummer des Controllers (seine Maschinen-ID).',
      nl: 'Serienummer van de controller (zijn machine-id).',
      fr: 'Numéro de série du contrôleur (son identifiant machine).',
    },
  },
  ControllerTime_custom: {
    label: { de: 'Controller-Zeit', nl: 'Tijd van de controller', fr: 'Heure du contrôleur' },
    description: {
      de: 'Datum und Uhrzeit des Controllers in UTC.',
      nl: 'Datum en tijd van de controller in UTC.',
      fr: 'Date et heure du contrôleur en UTC.',
    },
  },
  LogLevel: {
    label: { de: 'Protokollstufe', nl: 'Logniveau', fr: 'Niveau de journalisation' },
    description: {
      de: 'Detailgrad des Controller-Protokolls. Wirkt sofort.',
      nl: 'Detailniveau van het controllerlogboek. Werkt direct.',
      fr: 'Niveau de détail du journal du contrôleur. Prend effet immédiatement.',
    },
  },
  PilotDebounce: {
    label: { de: 'Entprellung Control Pilot', nl: 'Ontdendering control pilot', fr: 'Anti-rebond du Control Pilot' },
    description: {
      de: 'Zeit, die ein Control-Pilot-Pegel stabil sein muss, bevor der Ladezyklus darauf reagiert.',
      nl: 'Tijd dat een control-pilotniveau stabiel moet zijn voordat de laadcyclus erop reageert.',
      fr: "Durée pendant laquelle un niveau du Control Pilot doit être stable avant que le cycle de charge n'y réagisse.",
    },
  },
  // The live fields of /v1/app_dashboard (services/settings/dashboard.ts).
  Dashboard_SystemState: {
    label: { de: 'Zustand', nl: 'Toestand', fr: 'État' },
    description: {
      de: 'Zustand des Ladepunkts (Spezifikation 2.13 systemState).',
      nl: 'Toestand van het laadpunt (specificatie 2.13 systemState).',
      fr: 'État du point de charge (spécification 2.13 systemState).',
    },
  },
  Dashboard_OcppState: {
    label: { de: 'Status des Ladeanschlusses', nl: 'Status connector', fr: 'État du connecteur' },
    description: { de: 'OCPP-Status des Ladeanschlusses.', nl: 'OCPP-status van de connector.', fr: 'État OCPP du connecteur.' },
  },
  Dashboard_Power: {
    label: { de: 'Leistung', nl: 'Vermogen', fr: 'Puissance' },
    description: {
      de: 'Aktuell vom Fahrzeug bezogene Leistung.',
      nl: 'Vermogen dat het voertuig nu afneemt.',
      fr: 'Puissance absorbée actuellement par le véhicule.',
    },
  },
  Dashboard_Energy: {
    label: { de: 'Energie', nl: 'Energie', fr: 'Énergie' },
    description: {
      de: 'In der laufenden Transaktion geladene Energie.',
      nl: 'Geladen energie in de lopende transactie.',
      fr: 'Énergie chargée pendant la transaction en cours.',
    },
  },
  Dashboard_Currents: {
    label: { de: 'Ströme', nl: 'Stromen', fr: 'Courants' },
    description: {
      de: 'Strom auf L1, L2, L3 (-1, wenn der Zähler keinen Wert liefert).',
      nl: 'Stroom op L1, L2, L3 (-1 als de meter geen waarde geeft).',
      fr: 'Courant sur L1, L2, L3 (-1 lorsque le compteur ne donne pas de valeur).',
    },
  },
  Dashboard_Duration: {
    label: { de: 'Ladedauer', nl: 'Laadduur', fr: 'Durée de charge' },
    description: {
      de: 'Zeit seit Beginn der Transaktion.',
      nl: 'Tijd sinds het begin van de transactie.',
      fr: 'Temps écoulé depuis le début de la transaction.',
    },
  },
  Dashboard_Temperature: {
    label: { de: 'Temperatur', nl: 'Temperatuur', fr: 'Température' },
    description: {
      de: 'Temperatur im Inneren des Ladepunkts.',
      nl: 'Temperatuur binnen in het laadpunt.',
      fr: "Température à l'intérieur du point de charge.",
    },
  },
};

/** Sub-group labels by sub-group key. */
export const SUB_GROUP_TRANSLATIONS: Record<string, Translations> = {
  lan: { de: 'LAN', nl: 'LAN', fr: 'LAN' },
  gsm: { de: 'GSM', nl: 'GSM', fr: 'GSM' },
  connection: { de: 'Verbindung', nl: 'Verbinding', fr: 'Connexion' },
  ocpp: { de: 'OCPP', nl: 'OCPP', fr: 'OCPP' },
  rfid: { de: 'RFID-Einstellungen', nl: 'RFID-instellingen', fr: 'Paramètres RFID' },
  freecharging: { de: 'Freies Laden', nl: 'Vrij laden', fr: 'Recharge libre' },
  local: { de: 'Lokale Whitelist', nl: 'Lokale whitelist', fr: 'Liste blanche locale' },
  currentlimits: { de: 'Stromgrenzen', nl: 'Stroomlimieten', fr: 'Limites de courant' },
  connector: { de: 'Ladeanschluss', nl: 'Connector', fr: 'Connecteur' },
  language: { de: 'Sprache', nl: 'Taal', fr: 'Langue' },
  info: { de: 'Information', nl: 'Informatie', fr: 'Informations' },
  logging: { de: 'Protokollierung', nl: 'Logboek', fr: 'Journalisation' },
  diagnostics: { de: 'Diagnose', nl: 'Diagnose', fr: 'Diagnostic' },
};

/** Enum option labels by their English label (language names and log levels read the same in every language). */
export const OPTION_TRANSLATIONS: Record<string, Translations> = {
  Off: { de: 'Aus', nl: 'Uit', fr: 'Désactivé' },
  On: { de: 'Ein', nl: 'Aan', fr: 'Activé' },
  DHCP: { de: 'DHCP', nl: 'DHCP', fr: 'DHCP' },
  Static: { de: 'Statisch', nl: 'Statisch', fr: 'Statique' },
  'RFID only': { de: 'Nur RFID', nl: 'Alleen RFID', fr: 'RFID uniquement' },
  'RFID/NFC hybrid': { de: 'RFID/NFC-Hybrid', nl: 'RFID/NFC-hybride', fr: 'Hybride RFID/NFC' },
  '1 phase': { de: '1 Phase', nl: '1 fase', fr: '1 phase' },
  '3 phases': { de: '3 Phasen', nl: '3 fasen', fr: '3 phases' },
  English: { de: 'English', nl: 'English', fr: 'English' },
  Deutsch: { de: 'Deutsch', nl: 'Deutsch', fr: 'Deutsch' },
  Nederlands: { de: 'Nederlands', nl: 'Nederlands', fr: 'Nederlands' },
  Français: { de: 'Français', nl: 'Français', fr: 'Français' },
  error: { de: 'error', nl: 'error', fr: 'error' },
  warn: { de: 'warn', nl: 'warn', fr: 'warn' },
  info: { de: 'info', nl: 'info', fr: 'info' },
  debug: { de: 'debug', nl: 'debug', fr: 'debug' },
};

/** Why a settings pair was refused, in each language (the causes of a settings 400). */
export interface Reasons {
  string: string;
  length(min: number, max: number): string;
  control: string;
  pattern(hint: string): string;
  integer: string;
  range(min: number, max: number): string;
  option(list: string): string;
  triple(min: number, max: number): string;
  readOnly: string;
  role(role: string): string;
  unknown: string;
  twice: string;
  /** Starts the cause of the 400: "No setting was changed: …". */
  none: string;
  /** A static LAN configuration that does not hold together (services/network.ts lanProblem). */
  lan(problem: LanProblem): string;
  /** Network settings on a controller without NetworkManager. */
  noNetworkManager: string;
}

export const REASONS: Record<LanguageKey, Reasons> = {
  gb: {
    string: 'must be a string',
    length: (min, max) => `must be ${min} to ${max} characters long`,
    control: 'must not contain control characters',
    pattern: (hint) => `must be ${hint}`,
    integer: 'must be an integer',
    range: (min, max) => `must be from ${min} to ${max}`,
    option: (list) => `must be one of ${list}`,
    triple: (min, max) => `must be three integers from ${min} to ${max}`,
    readOnly: 'is read-only',
    role: (role) => `may not be changed by role ${role}`,
    unknown: 'does not exist',
    twice: 'appears more than once',
    none: 'No setting was changed',
    lan: (p) =>
      ({
        'address-is-network': 'makes the static address the network address of its subnet (not a host address)',
        'address-is-broadcast': 'makes the static address the broadcast address of its subnet (not a host address)',
        'gateway-outside': 'puts the gateway outside the subnet of the static address',
        'gateway-is-address': "makes the gateway the controller's own address",
      })[p],
    noNetworkManager: 'cannot be applied: this controller has no NetworkManager (nmcli)',
  },
  de: {
    string: 'muss eine Zeichenkette sein',
    length: (min, max) => `muss ${min} bis ${max} Zeichen lang sein`,
    control: 'darf keine Steuerzeichen enthalten',
    pattern: (hint) => `hat nicht die erwartete Form: ${hint}`,
    integer: 'muss eine ganze Zahl sein',
    range: (min, max) => `muss zwischen ${min} und ${max} liegen`,
    option: (list) => `muss einer dieser Werte sein: ${list}`,
    triple: (min, max) => `muss aus drei ganzen Zahlen von ${min} bis ${max} bestehen`,
    readOnly: 'ist schreibgeschützt',
    role: (role) => `darf von der Rolle ${role} nicht geändert werden`,
    unknown: 'existiert nicht',
    twice: 'kommt mehr als einmal vor',
    none: 'Keine Einstellung wurde geändert',
    lan: (p) =>
      ({
        'address-is-network': 'macht die statische Adresse zur Netzadresse ihres Subnetzes (keine Host-Adresse)',
        'address-is-broadcast': 'macht die statische Adresse zur Broadcast-Adresse ihres Subnetzes (keine Host-Adresse)',
        'gateway-outside': 'legt das Gateway außerhalb des Subnetzes der statischen Adresse',
        'gateway-is-address': 'macht das Gateway zur eigenen Adresse des Controllers',
      })[p],
    noNetworkManager: 'kann nicht angewendet werden: Dieser Controller hat keinen NetworkManager (nmcli)',
  },
  nl: {
    string: 'moet een tekenreeks zijn',
    length: (min, max) => `moet ${min} tot ${max} tekens lang zijn`,
    control: 'mag geen stuurtekens bevatten',
    pattern: (hint) => `heeft niet de verwachte vorm: ${hint}`,
    integer: 'moet een geheel getal zijn',
    range: (min, max) => `moet tussen ${min} en ${max} liggen`,
    option: (list) => `moet een van deze waarden zijn: ${list}`,
    triple: (min, max) => `moet uit drie gehele getallen van ${min} tot ${max} bestaan`,
    readOnly: 'is alleen-lezen',
    role: (role) => `mag niet worden gewijzigd door de rol ${role}`,
    unknown: 'bestaat niet',
    twice: 'komt meer dan eens voor',
    none: 'Er is geen instelling gewijzigd',
    lan: (p) =>
      ({
        'address-is-network': 'maakt van het statische adres het netwerkadres van zijn subnet (geen hostadres)',
        'address-is-broadcast': 'maakt van het statische adres het broadcastadres van zijn subnet (geen hostadres)',
        'gateway-outside': 'plaatst de gateway buiten het subnet van het statische adres',
        'gateway-is-address': 'maakt van de gateway het eigen adres van de controller',
      })[p],
    noNetworkManager: 'kan niet worden toegepast: deze controller heeft geen NetworkManager (nmcli)',
  },
  fr: {
    string: 'doit être une chaîne de caractères',
    length: (min, max) => `doit comporter de ${min} à ${max} caractères`,
    control: 'ne doit pas contenir de caractères de contrôle',
    pattern: (hint) => `n'a pas la forme attendue : ${hint}`,
    integer: 'doit être un nombre entier',
    range: (min, max) => `doit être compris entre ${min} et ${max}`,
    option: (list) => `doit être l'une de ces valeurs : ${list}`,
    triple: (min, max) => `doit être composé de trois entiers de ${min} à ${max}`,
    readOnly: 'est en lecture seule',
    role: (role) => `ne peut pas être modifié par le rôle ${role}`,
    unknown: "n'existe pas",
    twice: "apparaît plus d'une fois",
    none: "Aucun paramètre n'a été modifié",
    lan: (p) =>
      ({
        'address-is-network': "fait de l'adresse statique l'adresse réseau de son sous-réseau (pas une adresse d'hôte)",
        'address-is-broadcast': "fait de l'adresse statique l'adresse de diffusion de son sous-réseau (pas une adresse d'hôte)",
        'gateway-outside': "place la passerelle hors du sous-réseau de l'adresse statique",
        'gateway-is-address': 'fait de la passerelle l\'adresse du contrôleur lui-même',
      })[p],
    noNetworkManager: "ne peut pas être appliqué : ce contrôleur n'a pas de NetworkManager (nmcli)",
  },
};

/** The settings' texts in one language. */
export function settingsTexts(lang: LanguageKey) {
  return {
    lang,
    label: (key: string, english: string) => inLanguage(lang, english, FIELD_TRANSLATIONS[key]?.label),
    description: (key: string, english: string) => inLanguage(lang, english, FIELD_TRANSLATIONS[key]?.description),
    hint: (field: FieldDef) => {
      const english = field.type === 'string' ? (field.patternHint ?? 'in the documented form') : '';
      return inLanguage(lang, english, FIELD_TRANSLATIONS[field.key]?.hint).replace('{default}', String(field.default));
    },
    subGroup: (key: string, english: string) => inLanguage(lang, english, SUB_GROUP_TRANSLATIONS[key]),
    option: (english: string) => inLanguage(lang, english, OPTION_TRANSLATIONS[english]),
    reasons: REASONS[lang],
  };
}

export type SettingsTexts = ReturnType<typeof settingsTexts>;
