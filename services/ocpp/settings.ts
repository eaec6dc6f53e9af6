import { declare, onOff } from '../settings/types.js';

/** The OCPP client's settings (group Backend: Connection, OCPP, OCPP Authorization). */

/** Shown while OcppEnabled is on. */
const OCPP_ON = [{ name: 'OcppEnabled', value: [1] }];
const PRINTABLE = /^[\x20-\x7e]*$/;

/** Where the controller connects, and how it proves who it is. */
export const OCPP_CONNECTION_SETTINGS = declare({
  OcppEnabled: onOff({
    label: { gb: 'OCPP backend', de: 'OCPP-Backend', nl: 'OCPP-backend', fr: 'Backend OCPP' },
    description: {
      gb: 'Connect to an OCPP 1.6 central system. Off: the controller works stand-alone.',
      de: 'Mit einem OCPP-1.6-Zentralsystem verbinden. Aus: Der Controller arbeitet eigenständig.',
      nl: 'Verbinden met een centraal OCPP 1.6-systeem. Uit: de controller werkt zelfstandig.',
      fr: 'Se connecter à un système central OCPP 1.6. Désactivé : le contrôleur fonctionne de manière autonome.',
    },
    default: 0,
    role: 'installer',
    reboot: true,
  }),
  OcppUrl: {
    label: { gb: 'Central system URL', de: 'URL des Zentralsystems', nl: 'URL van het centrale systeem', fr: 'URL du système central' },
    description: {
      gb: 'WebSocket URL of the OCPP central system (ws:// or wss://); the charge box identity is appended as the last path segment.',
      de: 'WebSocket-URL des OCPP-Zentralsystems (ws:// oder wss://); die Kennung der Ladestation wird als letztes Pfadsegment angehängt.',
      nl: 'WebSocket-URL van het centrale OCPP-systeem (ws:// of wss://); de identiteit van het laadstation wordt als laatste padsegment toegevoegd.',
      fr: "URL WebSocket du système central OCPP (ws:// ou wss://) ; l'identifiant de la borne est ajouté comme dernier segment du chemin.",
    },
    type: 'string',
    length: [0, 255],
    pattern: /^$|^wss?:\/\/[\x21-\x7e]+$/,
    hint: {
      gb: 'empty or a ws:// or wss:// URL',
      de: 'leer oder eine ws://- bzw. wss://-URL',
      nl: 'leeg of een ws://- of wss://-URL',
      fr: 'vide ou une URL ws:// ou wss://',
    },
    default: '',
    role: 'installer',
    parents: OCPP_ON,
    reboot: true,
  },
  OcppPassword: {
    label: {
      gb: 'Password (security profile 1)',
      de: 'Passwort (Sicherheitsprofil 1)',
      nl: 'Wachtwoord (beveiligingsprofiel 1)',
      fr: 'Mot de passe (profil de sécurité 1)',
    },
    description: {
      gb: 'HTTP basic authentication password at the central system (OCPP AuthorizationKey), 16 to 40 characters; empty: none. Write-only: it is never shown.',
      de:
        'Passwort der HTTP-Basic-Authentifizierung beim Zentralsystem (OCPP AuthorizationKey), ' +
        '16 bis 40 Zeichen; leer: keines. Nur schreibbar: Es wird nie angezeigt.',
      nl:
        'Wachtwoord voor HTTP-basisauthenticatie bij het centrale systeem (OCPP AuthorizationKey), ' +
        '16 tot 40 tekens; leeg: geen. Alleen schrijven: het wordt nooit getoond.',
      fr:
        "Mot de passe d'authentification HTTP basique auprès du système central (OCPP AuthorizationKey), " +
        "16 à 40 caractères ; vide : aucun. En écriture seule : il n'est jamais affiché.",
    },
    type: 'string',
    length: [0, 40],
    pattern: /^$|^[\x21-\x7e]{16,40}$/,
    hint: {
      gb: 'empty or 16 to 40 printable ASCII characters without spaces',
      de: 'leer oder 16 bis 40 druckbare ASCII-Zeichen ohne Leerzeichen',
      nl: 'leeg of 16 tot 40 afdrukbare ASCII-tekens zonder spaties',
      fr: 'vide ou 16 à 40 caractères ASCII imprimables sans espace',
    },
    default: '',
    role: 'installer',
    parents: OCPP_ON,
    writeOnly: true,
    reboot: true,
  },
  OcppCaFile: {
    label: {
      gb: 'CA certificate file (security profile 2)',
      de: 'CA-Zertifikatsdatei (Sicherheitsprofil 2)',
      nl: 'CA-certificaatbestand (beveiligingsprofiel 2)',
      fr: 'Fichier de certificat CA (profil de sécurité 2)',
    },
    description: {
      gb: "Path of a PEM file with the certificate authority that signed the central system's certificate (wss:// only); empty: the system's trusted authorities.",
      de: 'Pfad einer PEM-Datei mit der Zertifizierungsstelle, die das Zertifikat des Zentralsystems signiert hat (nur wss://); leer: die vertrauenswürdigen Stellen des Systems.',
      nl: 'Pad van een PEM-bestand met de certificeringsinstantie die het certificaat van het centrale systeem heeft ondertekend (alleen wss://); leeg: de vertrouwde instanties van het systeem.',
      fr: "Chemin d'un fichier PEM contenant l'autorité de certification qui a signé le certificat du système central (wss:// uniquement) ; vide : les autorités de confiance du système.",
    },
    type: 'string',
    length: [0, 255],
    pattern: PRINTABLE,
    hint: { gb: 'printable ASCII characters', de: 'druckbare ASCII-Zeichen', nl: 'afdrukbare ASCII-tekens', fr: 'des caractères ASCII imprimables' },
    default: '',
    role: 'installer',
    parents: OCPP_ON,
    reboot: true,
  },
});

/** The protocol: identity, intervals, retries of transaction messages. */
export const OCPP_PROTOCOL_SETTINGS = declare({
  OcppChargeBoxId: {
    label: { gb: 'Charge box identity', de: 'Kennung der Ladestation', nl: 'Identiteit van het laadstation', fr: 'Identifiant de la borne' },
    description: {
      gb: 'Identity of this charge point at the central system.',
      de: 'Kennung dieses Ladepunkts beim Zentralsystem.',
      nl: 'Identiteit van dit laadpunt bij het centrale systeem.',
      fr: 'Identifiant de ce point de charge auprès du système central.',
    },
    type: 'string',
    length: [1, 48],
    pattern: /^[\w.-]+$/,
    hint: {
      gb: 'letters, digits, ".", "_" and "-"',
      de: 'Buchstaben, Ziffern, ".", "_" und "-"',
      nl: 'letters, cijfers, ".", "_" en "-"',
      fr: 'lettres, chiffres, ".", "_" et "-"',
    },
    default: 'CC-0001',
    role: 'installer',
    parents: OCPP_ON,
    reboot: true,
  },
  OcppVersions: {
    label: { gb: 'OCPP versions', de: 'OCPP-Versionen', nl: 'OCPP-versies', fr: 'Versions OCPP' },
    description: {
      gb:
        'The OCPP versions offered to the central system (WebSocket subprotocols), in order of preference; the central ' +
        'system picks one. The OCPP 2.0.1 charging station is not complete yet (docs/ocpp.md).',
      de:
        'Die dem Zentralsystem angebotenen OCPP-Versionen (WebSocket-Subprotokolle), in der bevorzugten Reihenfolge; ' +
        'das Zentralsystem wählt eine. Die OCPP-2.0.1-Ladestation ist noch nicht vollständig (docs/ocpp.md).',
      nl:
        'De OCPP-versies die aan het centrale systeem worden aangeboden (WebSocket-subprotocollen), in volgorde van ' +
        'voorkeur; het centrale systeem kiest er een. Het OCPP 2.0.1-laadstation is nog niet compleet (docs/ocpp.md).',
      fr:
        'Les versions OCPP proposées au système central (sous-protocoles WebSocket), par ordre de préférence ; le ' +
        "système central en choisit une. La borne OCPP 2.0.1 n'est pas encore complète (docs/ocpp.md).",
    },
    type: 'string',
    length: [7, 24],
    pattern: /^(ocpp1\.6|ocpp2\.0\.1|ocpp1\.6,ocpp2\.0\.1|ocpp2\.0\.1,ocpp1\.6)$/,
    hint: {
      gb: 'ocpp1.6, ocpp2.0.1, or both comma-separated in order of preference',
      de: 'ocpp1.6, ocpp2.0.1 oder beide durch Komma getrennt in bevorzugter Reihenfolge',
      nl: 'ocpp1.6, ocpp2.0.1, of beide gescheiden door een komma in volgorde van voorkeur',
      fr: 'ocpp1.6, ocpp2.0.1, ou les deux séparés par une virgule par ordre de préférence',
    },
    default: 'ocpp1.6',
    role: 'installer',
    parents: OCPP_ON,
    reboot: true,
  },
  OcppHeartbeatInterval: {
    label: { gb: 'Heartbeat interval', de: 'Heartbeat-Intervall', nl: 'Heartbeat-interval', fr: 'Intervalle de heartbeat' },
    description: {
      gb: 'Interval of OCPP heartbeats when the central system does not set one (OCPP HeartbeatInterval).',
      de: 'Intervall der OCPP-Heartbeats, wenn das Zentralsystem keines vorgibt (OCPP HeartbeatInterval).',
      nl: 'Interval van de OCPP-heartbeats als het centrale systeem er geen instelt (OCPP HeartbeatInterval).',
      fr: "Intervalle des heartbeats OCPP lorsque le système central n'en fixe pas (OCPP HeartbeatInterval).",
    },
    type: 'int',
    range: [30, 86400],
    default: 300,
    unit: 's',
    role: 'installer',
    parents: OCPP_ON,
  },
  OcppWebSocketPingInterval: {
    label: { gb: 'WebSocket ping interval', de: 'WebSocket-Ping-Intervall', nl: 'WebSocket-ping-interval', fr: 'Intervalle de ping WebSocket' },
    description: {
      gb:
        'A WebSocket ping is sent this often; a connection that does not answer before the ' +
        'next ping is closed and opened again (OCPP WebSocketPingInterval). 0: no pings.',
      de:
        'So oft wird ein WebSocket-Ping gesendet; eine Verbindung, die bis zum nächsten Ping nicht ' +
        'antwortet, wird geschlossen und neu aufgebaut (OCPP WebSocketPingInterval). 0: keine Pings.',
      nl:
        'Zo vaak wordt een WebSocket-ping verstuurd; een verbinding die voor de volgende ping niet ' +
        'antwoordt, wordt gesloten en opnieuw geopend (OCPP WebSocketPingInterval). 0: geen pings.',
      fr:
        "Fréquence d'envoi d'un ping WebSocket ; une connexion qui ne répond pas avant le " +
        'ping suivant est fermée puis rouverte (OCPP WebSocketPingInterval). 0 : aucun ping.',
    },
    type: 'int',
    range: [0, 3600],
    default: 60,
    unit: 's',
    role: 'installer',
    parents: OCPP_ON,
  },
  OcppMeterValueSampleInterval: {
    label: { gb: 'Meter value interval', de: 'Messwert-Intervall', nl: 'Meterwaarde-interval', fr: 'Intervalle des valeurs de compteur' },
    description: {
      gb: 'During a transaction, meter values are sent this often (OCPP MeterValueSampleInterval). 0: none.',
      de: 'Während einer Transaktion werden Messwerte so oft gesendet (OCPP MeterValueSampleInterval). 0: keine.',
      nl: 'Tijdens een transactie worden meterwaarden zo vaak verstuurd (OCPP MeterValueSampleInterval). 0: geen.',
      fr: 'Pendant une transaction, les valeurs du compteur sont envoyées à cette fréquence (OCPP MeterValueSampleInterval). 0 : aucune.',
    },
    type: 'int',
    range: [0, 3600],
    default: 60,
    unit: 's',
    role: 'installer',
    parents: OCPP_ON,
  },
  OcppClockAlignedDataInterval: {
    label: {
      gb: 'Clock-aligned meter value interval',
      de: 'Uhrzeitgebundenes Messwert-Intervall',
      nl: 'Klokgebonden meterwaarde-interval',
      fr: "Intervalle des valeurs alignées sur l'horloge",
    },
    description: {
      gb: 'Meter values are also sent at every multiple of this interval after midnight UTC (OCPP ClockAlignedDataInterval). 0: none.',
      de: 'Messwerte werden zusätzlich zu jedem Vielfachen dieses Intervalls nach Mitternacht UTC gesendet (OCPP ClockAlignedDataInterval). 0: keine.',
      nl: 'Meterwaarden worden ook verstuurd op elk veelvoud van dit interval na middernacht UTC (OCPP ClockAlignedDataInterval). 0: geen.',
      fr: 'Les valeurs du compteur sont aussi envoyées à chaque multiple de cet intervalle après minuit UTC (OCPP ClockAlignedDataInterval). 0 : aucune.',
    },
    type: 'int',
    range: [0, 86400],
    default: 0,
    unit: 's',
    role: 'installer',
    parents: OCPP_ON,
  },
  OcppTransactionMessageAttempts: {
    label: {
      gb: 'Transaction message attempts',
      de: 'Versuche für Transaktionsnachrichten',
      nl: 'Pogingen voor transactieberichten',
      fr: 'Tentatives des messages de transaction',
    },
    description: {
      gb: 'How often a transaction message the central system refuses is sent before it is given up (OCPP TransactionMessageAttempts).',
      de: 'Wie oft eine Transaktionsnachricht, die das Zentralsystem ablehnt, gesendet wird, bevor sie aufgegeben wird (OCPP TransactionMessageAttempts).',
      nl: 'Hoe vaak een transactiebericht dat het centrale systeem weigert wordt verstuurd voordat het wordt opgegeven (OCPP TransactionMessageAttempts).',
      fr: "Nombre d'envois d'un message de transaction refusé par le système central avant d'y renoncer (OCPP TransactionMessageAttempts).",
    },
    type: 'int',
    range: [1, 10],
    default: 3,
    role: 'installer',
    parents: OCPP_ON,
  },
  OcppTransactionMessageRetryInterval: {
    label: {
      gb: 'Transaction message retry interval',
      de: 'Wiederholintervall für Transaktionsnachrichten',
      nl: 'Herhaalinterval voor transactieberichten',
      fr: 'Intervalle de réessai des messages de transaction',
    },
    description: {
      gb: 'Wait before sending a refused transaction message again, multiplied by the attempts made (OCPP TransactionMessageRetryInterval).',
      de:
        'Wartezeit vor dem erneuten Senden einer abgelehnten Transaktionsnachricht, ' +
        'multipliziert mit den bisherigen Versuchen (OCPP TransactionMessageRetryInterval).',
      nl:
        'Wachttijd voordat een geweigerd transactiebericht opnieuw wordt verstuurd, ' +
        'vermenigvuldigd met het aantal pogingen (OCPP TransactionMessageRetryInterval).',
      fr: 'Attente avant de renvoyer un message de transaction refusé, multipliée par le nombre de tentatives (OCPP TransactionMessageRetryInterval).',
    },
    type: 'int',
    range: [1, 3600],
    default: 60,
    unit: 's',
    role: 'installer',
    parents: OCPP_ON,
  },
});

/** Which tags may charge without asking the central system (OCPPWLEnabled: operators switch it). */
export const OCPP_AUTHORIZATION_SETTINGS = declare({
  OCPPWLEnabled: onOff({
    label: { gb: 'OCPP whitelist', de: 'OCPP-Whitelist', nl: 'OCPP-whitelist', fr: 'Liste blanche OCPP' },
    description: {
      gb: 'Accept tags from the whitelist the central system sends (OCPP local authorization list, LocalAuthListEnabled).',
      de: 'Tags aus der Whitelist akzeptieren, die das Zentralsystem sendet (lokale OCPP-Autorisierungsliste, LocalAuthListEnabled).',
      nl: 'Tags accepteren uit de whitelist die het centrale systeem stuurt (lokale OCPP-autorisatielijst, LocalAuthListEnabled).',
      fr: "Accepter les badges de la liste blanche envoyée par le système central (liste d'autorisation locale OCPP, LocalAuthListEnabled).",
    },
    default: 0,
    role: 'operator',
  }),
  OcppAuthorizationCacheEnabled: onOff({
    label: { gb: 'Authorization cache', de: 'Autorisierungs-Cache', nl: 'Autorisatiecache', fr: "Cache d'autorisation" },
    description: {
      gb: "Remember the central system's answers to Authorize for use while it cannot be reached (OCPP AuthorizationCacheEnabled).",
      de: 'Die Antworten des Zentralsystems auf Authorize merken, um sie zu nutzen, solange es nicht erreichbar ist (OCPP AuthorizationCacheEnabled).',
      nl: 'De antwoorden van het centrale systeem op Authorize onthouden voor gebruik zolang het niet bereikbaar is (OCPP AuthorizationCacheEnabled).',
      fr: "Mémoriser les réponses du système central à Authorize pour les utiliser tant qu'il est injoignable (OCPP AuthorizationCacheEnabled).",
    },
    default: 1,
    role: 'installer',
    parents: OCPP_ON,
  }),
  OcppLocalPreAuthorize: onOff({
    label: { gb: 'Local pre-authorization', de: 'Lokale Vorautorisierung', nl: 'Lokale pre-autorisatie', fr: 'Pré-autorisation locale' },
    description: {
      gb: 'While connected, a tag valid in the OCPP whitelist or the cache starts charging without asking the central system first (OCPP LocalPreAuthorize).',
      de:
        'Bei bestehender Verbindung startet ein in der OCPP-Whitelist oder im Cache gültiger ' +
        'Tag das Laden, ohne zuerst das Zentralsystem zu fragen (OCPP LocalPreAuthorize).',
      nl:
        'Met verbinding start een tag die geldig is in de OCPP-whitelist of de cache ' +
        'het laden zonder eerst het centrale systeem te vragen (OCPP LocalPreAuthorize).',
      fr:
        'Connecté, un badge valide dans la liste blanche OCPP ou le cache démarre la ' +
        "charge sans interroger d'abord le système central (OCPP LocalPreAuthorize).",
    },
    default: 0,
    role: 'installer',
    parents: OCPP_ON,
  }),
  OcppLocalAuthorizeOffline: onOff({
    label: { gb: 'Offline authorization', de: 'Offline-Autorisierung', nl: 'Offline-autorisatie', fr: 'Autorisation hors ligne' },
    description: {
      gb: 'While the central system cannot be reached, tags valid in the OCPP whitelist or the cache may charge (OCPP LocalAuthorizeOffline).',
      de: 'Solange das Zentralsystem nicht erreichbar ist, dürfen in der OCPP-Whitelist oder im Cache gültige Tags laden (OCPP LocalAuthorizeOffline).',
      nl: 'Zolang het centrale systeem niet bereikbaar is, mogen tags die geldig zijn in de OCPP-whitelist of de cache laden (OCPP LocalAuthorizeOffline).',
      fr:
        'Tant que le système central est injoignable, les badges valides dans la ' +
        'liste blanche OCPP ou le cache peuvent charger (OCPP LocalAuthorizeOffline).',
    },
    default: 1,
    role: 'installer',
    parents: OCPP_ON,
  }),
  OcppAllowOfflineTxForUnknownId: onOff({
    label: {
      gb: 'Offline charging for unknown tags',
      de: 'Offline-Laden für unbekannte Tags',
      nl: 'Offline laden voor onbekende tags',
      fr: 'Charge hors ligne pour badges inconnus',
    },
    description: {
      gb: 'While the central system cannot be reached, any tag may charge (OCPP AllowOfflineTxForUnknownId).',
      de: 'Solange das Zentralsystem nicht erreichbar ist, darf jeder Tag laden (OCPP AllowOfflineTxForUnknownId).',
      nl: 'Zolang het centrale systeem niet bereikbaar is, mag elke tag laden (OCPP AllowOfflineTxForUnknownId).',
      fr: 'Tant que le système central est injoignable, tout badge peut charger (OCPP AllowOfflineTxForUnknownId).',
    },
    default: 0,
    role: 'installer',
    parents: OCPP_ON,
  }),
  OcppStopTransactionOnInvalidId: onOff({
    label: { gb: 'Stop on invalid tag', de: 'Stopp bei ungültigem Tag', nl: 'Stoppen bij ongeldige tag', fr: 'Arrêt sur badge invalide' },
    description: {
      gb: 'Stop a transaction when the central system answers its start with a tag that is not valid (OCPP StopTransactionOnInvalidId).',
      de: 'Eine Transaktion beenden, wenn das Zentralsystem ihren Start mit einem ungültigen Tag beantwortet (OCPP StopTransactionOnInvalidId).',
      nl: 'Een transactie stoppen als het centrale systeem de start ervan beantwoordt met een ongeldige tag (OCPP StopTransactionOnInvalidId).',
      fr: 'Arrêter une transaction lorsque le système central répond à son démarrage avec un badge non valide (OCPP StopTransactionOnInvalidId).',
    },
    default: 1,
    role: 'installer',
    parents: OCPP_ON,
  }),
});
