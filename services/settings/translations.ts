import { inLanguage, type LanguageKey, type Translations } from '../i18n.js';
import type { FieldDef } from './catalogue.js';
import type { LanProblem } from '../network.js';

/**
 * The settings' texts in German, Dutch and French (English is in catalogue.ts, and the dashboard's live fields in
 * dashboard.ts). Group labels are not here: spec 2.7 fixes them as an enum of English names, so they are the same
 * in every language (the web interface translates the group keys itself). A test fails when a text lacks one.
 */

type FieldTexts = { label: Translations; description: Translations; hint?: Translations };

/** The hint of the MQTT topic fields. */
const TOPIC_HINT: Translations = {
  de: 'Topic-Ebenen, getrennt durch "/", ohne "+", "#", Leerzeichen, leere Ebenen oder ein führendes "$"',
  nl: 'topic-niveaus gescheiden door "/", zonder "+", "#", spaties, lege niveaus of een "$" aan het begin',
  fr: 'des niveaux de topic séparés par "/", sans "+", "#", espaces, niveaux vides ni "$" initial',
};

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
      de: 'WebSocket-URL des OCPP-Zentralsystems (ws:// oder wss://); die Kennung der Ladestation wird als letztes Pfadsegment angehängt.',
      nl: 'WebSocket-URL van het centrale OCPP-systeem (ws:// of wss://); de identiteit van het laadstation wordt als laatste padsegment toegevoegd.',
      fr: "URL WebSocket du système central OCPP (ws:// ou wss://) ; l'identifiant de la borne est ajouté comme dernier segment du chemin.",
    },
    hint: { de: 'leer oder eine ws://- bzw. wss://-URL', nl: 'leeg of een ws://- of wss://-URL', fr: 'vide ou une URL ws:// ou wss://' },
  },
  OcppPassword: {
    label: { de: 'Passwort (Sicherheitsprofil 1)', nl: 'Wachtwoord (beveiligingsprofiel 1)', fr: 'Mot de passe (profil de sécurité 1)' },
    description: {
      de: 'Passwort der HTTP-Basic-Authentifizierung beim Zentralsystem (OCPP AuthorizationKey), 16 bis 40 Zeichen; leer: keines. Nur schreibbar: Es wird nie angezeigt.',
      nl: 'Wachtwoord voor HTTP-basisauthenticatie bij het centrale systeem (OCPP AuthorizationKey), 16 tot 40 tekens; leeg: geen. Alleen schrijven: het wordt nooit getoond.',
      fr: "Mot de passe d'authentification HTTP basique auprès du système central (OCPP AuthorizationKey), 16 à 40 caractères ; vide : aucun. En écriture seule : il n'est jamais affiché.",
    },
    hint: {
      de: 'leer oder 16 bis 40 druckbare ASCII-Zeichen ohne Leerzeichen',
      nl: 'leeg of 16 tot 40 afdrukbare ASCII-tekens zonder spaties',
      fr: 'vide ou 16 à 40 caractères ASCII imprimables sans espace',
    },
  },
  OcppCaFile: {
    label: { de: 'CA-Zertifikatsdatei (Sicherheitsprofil 2)', nl: 'CA-certificaatbestand (beveiligingsprofiel 2)', fr: 'Fichier de certificat CA (profil de sécurité 2)' },
    description: {
      de: 'Pfad einer PEM-Datei mit der Zertifizierungsstelle, die das Zertifikat des Zentralsystems signiert hat (nur wss://); leer: die vertrauenswürdigen Stellen des Systems.',
      nl: 'Pad van een PEM-bestand met de certificeringsinstantie die het certificaat van het centrale systeem heeft ondertekend (alleen wss://); leeg: de vertrouwde instanties van het systeem.',
      fr: "Chemin d'un fichier PEM contenant l'autorité de certification qui a signé le certificat du système central (wss:// uniquement) ; vide : les autorités de confiance du système.",
    },
    hint: { de: 'druckbare ASCII-Zeichen', nl: 'afdrukbare ASCII-tekens', fr: 'des caractères ASCII imprimables' },
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
      de: 'Intervall der OCPP-Heartbeats, wenn das Zentralsystem keines vorgibt (OCPP HeartbeatInterval).',
      nl: 'Interval van de OCPP-heartbeats als het centrale systeem er geen instelt (OCPP HeartbeatInterval).',
      fr: "Intervalle des heartbeats OCPP lorsque le système central n'en fixe pas (OCPP HeartbeatInterval).",
    },
  },
  OcppWebSocketPingInterval: {
    label: { de: 'WebSocket-Ping-Intervall', nl: 'WebSocket-ping-interval', fr: 'Intervalle de ping WebSocket' },
    description: {
      de: 'So oft wird ein WebSocket-Ping gesendet; eine Verbindung, die bis zum nächsten Ping nicht antwortet, wird geschlossen und neu aufgebaut (OCPP WebSocketPingInterval). 0: keine Pings.',
      nl: 'Zo vaak wordt een WebSocket-ping verstuurd; een verbinding die voor de volgende ping niet antwoordt, wordt gesloten en opnieuw geopend (OCPP WebSocketPingInterval). 0: geen pings.',
      fr: "Fréquence d'envoi d'un ping WebSocket ; une connexion qui ne répond pas avant le ping suivant est fermée puis rouverte (OCPP WebSocketPingInterval). 0 : aucun ping.",
    },
  },
  OcppMeterValueSampleInterval: {
    label: { de: 'Messwert-Intervall', nl: 'Meterwaarde-interval', fr: 'Intervalle des valeurs de compteur' },
    description: {
      de: 'Während einer Transaktion werden Messwerte so oft gesendet (OCPP MeterValueSampleInterval). 0: keine.',
      nl: 'Tijdens een transactie worden meterwaarden zo vaak verstuurd (OCPP MeterValueSampleInterval). 0: geen.',
      fr: 'Pendant une transaction, les valeurs du compteur sont envoyées à cette fréquence (OCPP MeterValueSampleInterval). 0 : aucune.',
    },
  },
  OcppClockAlignedDataInterval: {
    label: { de: 'Uhrzeitgebundenes Messwert-Intervall', nl: 'Klokgebonden meterwaarde-interval', fr: "Intervalle des valeurs alignées sur l'horloge" },
    description: {
      de: 'Messwerte werden zusätzlich zu jedem Vielfachen dieses Intervalls nach Mitternacht UTC gesendet (OCPP ClockAlignedDataInterval). 0: keine.',
      nl: 'Meterwaarden worden ook verstuurd op elk veelvoud van dit interval na middernacht UTC (OCPP ClockAlignedDataInterval). 0: geen.',
      fr: 'Les valeurs du compteur sont aussi envoyées à chaque multiple de cet intervalle après minuit UTC (OCPP ClockAlignedDataInterval). 0 : aucune.',
    },
  },
  OcppTransactionMessageAttempts: {
    label: { de: 'Versuche für Transaktionsnachrichten', nl: 'Pogingen voor transactieberichten', fr: 'Tentatives des messages de transaction' },
    description: {
      de: 'Wie oft eine Transaktionsnachricht, die das Zentralsystem ablehnt, gesendet wird, bevor sie aufgegeben wird (OCPP TransactionMessageAttempts).',
      nl: 'Hoe vaak een transactiebericht dat het centrale systeem weigert wordt verstuurd voordat het wordt opgegeven (OCPP TransactionMessageAttempts).',
      fr: "Nombre d'envois d'un message de transaction refusé par le système central avant d'y renoncer (OCPP TransactionMessageAttempts).",
    },
  },
  OcppTransactionMessageRetryInterval: {
    label: { de: 'Wiederholintervall für Transaktionsnachrichten', nl: 'Herhaalinterval voor transactieberichten', fr: 'Intervalle de réessai des messages de transaction' },
    description: {
      de: 'Wartezeit vor dem erneuten Senden einer abgelehnten Transaktionsnachricht, multipliziert mit den bisherigen Versuchen (OCPP TransactionMessageRetryInterval).',
      nl: 'Wachttijd voordat een geweigerd transactiebericht opnieuw wordt verstuurd, vermenigvuldigd met het aantal pogingen (OCPP TransactionMessageRetryInterval).',
      fr: "Attente avant de renvoyer un message de transaction refusé, multipliée par le nombre de tentatives (OCPP TransactionMessageRetryInterval).",
    },
  },
  OCPPWLEnabled: {
    label: { de: 'OCPP-Whitelist', nl: 'OCPP-whitelist', fr: 'Liste blanche OCPP' },
    description: {
      de: 'Tags aus der Whitelist akzeptieren, die das Zentralsystem sendet (lokale OCPP-Autorisierungsliste, LocalAuthListEnabled).',
      nl: 'Tags accepteren uit de whitelist die het centrale systeem stuurt (lokale OCPP-autorisatielijst, LocalAuthListEnabled).',
      fr: "Accepter les badges de la liste blanche envoyée par le système central (liste d'autorisation locale OCPP, LocalAuthListEnabled).",
    },
  },
  OcppAuthorizationCacheEnabled: {
    label: { de: 'Autorisierungs-Cache', nl: 'Autorisatiecache', fr: "Cache d'autorisation" },
    description: {
      de: 'Die Antworten des Zentralsystems auf Authorize merken, um sie zu nutzen, solange es nicht erreichbar ist (OCPP AuthorizationCacheEnabled).',
      nl: 'De antwoorden van het centrale systeem op Authorize onthouden voor gebruik zolang het niet bereikbaar is (OCPP AuthorizationCacheEnabled).',
      fr: "Mémoriser les réponses du système central à Authorize pour les utiliser tant qu'il est injoignable (OCPP AuthorizationCacheEnabled).",
    },
  },
  OcppLocalPreAuthorize: {
    label: { de: 'Lokale Vorautorisierung', nl: 'Lokale pre-autorisatie', fr: 'Pré-autorisation locale' },
    description: {
      de: 'Bei bestehender Verbindung startet ein in der OCPP-Whitelist oder im Cache gültiger Tag das Laden, ohne zuerst das Zentralsystem zu fragen (OCPP LocalPreAuthorize).',
      nl: 'Met verbinding start een tag die geldig is in de OCPP-whitelist of de cache het laden zonder eerst het centrale systeem te vragen (OCPP LocalPreAuthorize).',
      fr: 'Connecté, un badge valide dans la liste blanche OCPP ou le cache démarre la charge sans interroger d\'abord le système central (OCPP LocalPreAuthorize).',
    },
  },
  OcppLocalAuthorizeOffline: {
    label: { de: 'Offline-Autorisierung', nl: 'Offline-autorisatie', fr: 'Autorisation hors ligne' },
    description: {
      de: 'Solange das Zentralsystem nicht erreichbar ist, dürfen in der OCPP-Whitelist oder im Cache gültige Tags laden (OCPP LocalAuthorizeOffline).',
      nl: 'Zolang het centrale systeem niet bereikbaar is, mogen tags die geldig zijn in de OCPP-whitelist of de cache laden (OCPP LocalAuthorizeOffline).',
      fr: 'Tant que le système central est injoignable, les badges valides dans la liste blanche OCPP ou le cache peuvent charger (OCPP LocalAuthorizeOffline).',
    },
  },
  OcppAllowOfflineTxForUnknownId: {
    label: { de: 'Offline-Laden für unbekannte Tags', nl: 'Offline laden voor onbekende tags', fr: 'Charge hors ligne pour badges inconnus' },
    description: {
      de: 'Solange das Zentralsystem nicht erreichbar ist, darf jeder Tag laden (OCPP AllowOfflineTxForUnknownId).',
      nl: 'Zolang het centrale systeem niet bereikbaar is, mag elke tag laden (OCPP AllowOfflineTxForUnknownId).',
      fr: "Tant que le système central est injoignable, tout badge peut charger (OCPP AllowOfflineTxForUnknownId).",
    },
  },
  OcppStopTransactionOnInvalidId: {
    label: { de: 'Stopp bei ungültigem Tag', nl: 'Stoppen bij ongeldige tag', fr: 'Arrêt sur badge invalide' },
    description: {
      de: 'Eine Transaktion beenden, wenn das Zentralsystem ihren Start mit einem ungültigen Tag beantwortet (OCPP StopTransactionOnInvalidId).',
      nl: 'Een transactie stoppen als het centrale systeem de start ervan beantwoordt met een ongeldige tag (OCPP StopTransactionOnInvalidId).',
      fr: 'Arrêter une transaction lorsque le système central répond à son démarrage avec un badge non valide (OCPP StopTransactionOnInvalidId).',
    },
  },
  MqttEnabled: {
    label: { de: 'MQTT', nl: 'MQTT', fr: 'MQTT' },
    description: {
      de: 'Den Zustand an einen MQTT-Broker senden und Befehle von ihm annehmen (Home Assistant, evcc, Node-RED).',
      nl: 'De toestand naar een MQTT-broker publiceren en er opdrachten van aannemen (Home Assistant, evcc, Node-RED).',
      fr: "Publier l'état sur un broker MQTT et en accepter des commandes (Home Assistant, evcc, Node-RED).",
    },
  },
  MqttUrl: {
    label: { de: 'Broker-URL', nl: 'Broker-URL', fr: 'URL du broker' },
    description: {
      de: 'mqtt://host:port oder mqtts://host:port für TLS (standardmäßig Port 1883 bzw. 8883). Benutzer und Passwort werden unten eingestellt, nicht in der URL.',
      nl: 'mqtt://host:poort, of mqtts://host:poort voor TLS (standaard poort 1883 en 8883). Gebruiker en wachtwoord stelt u hieronder in, niet in de URL.',
      fr: "mqtt://hôte:port, ou mqtts://hôte:port pour TLS (ports 1883 et 8883 par défaut). L'utilisateur et le mot de passe se règlent ci-dessous, pas dans l'URL.",
    },
    hint: {
      de: 'leer oder eine mqtt://- bzw. mqtts://-URL mit Host und optionalem Port, ohne Benutzer, Passwort oder Pfad',
      nl: 'leeg of een mqtt://- of mqtts://-URL met een host en een optionele poort, zonder gebruiker, wachtwoord of pad',
      fr: 'vide ou une URL mqtt:// ou mqtts:// avec un hôte et un port facultatif, sans utilisateur, mot de passe ni chemin',
    },
  },
  MqttUsername: {
    label: { de: 'Benutzername', nl: 'Gebruikersnaam', fr: "Nom d'utilisateur" },
    description: { de: 'Benutzername beim Broker; leer: keiner.', nl: 'Gebruikersnaam bij de broker; leeg: geen.', fr: "Nom d'utilisateur auprès du broker ; vide : aucun." },
  },
  MqttPassword: {
    label: { de: 'Passwort', nl: 'Wachtwoord', fr: 'Mot de passe' },
    description: {
      de: 'Passwort beim Broker. Nur schreibbar: Es wird nie angezeigt, protokolliert oder veröffentlicht.',
      nl: 'Wachtwoord bij de broker. Alleen-schrijven: het wordt nooit getoond, gelogd of gepubliceerd.',
      fr: "Mot de passe auprès du broker. En écriture seule : il n'est jamais affiché, journalisé ni publié.",
    },
  },
  MqttClientId: {
    label: { de: 'Client-ID', nl: 'Client-ID', fr: 'Identifiant client' },
    description: {
      de: 'Client-Kennung beim Broker; leer: charge-controller- gefolgt von der Seriennummer.',
      nl: 'Client-ID bij de broker; leeg: charge-controller- gevolgd door het serienummer.',
      fr: 'Identifiant du client auprès du broker ; vide : charge-controller- suivi du numéro de série.',
    },
    hint: { de: 'druckbare ASCII-Zeichen ohne Leerzeichen', nl: 'afdrukbare ASCII-tekens zonder spaties', fr: 'des caractères ASCII imprimables sans espaces' },
  },
  MqttBaseTopic: {
    label: { de: 'Basis-Topic', nl: 'Basistopic', fr: 'Topic de base' },
    description: {
      de: 'Jedes Topic dieses Ladepunkts beginnt damit; jeder Ladepunkt an einem Broker braucht ein eigenes.',
      nl: 'Elk topic van dit laadpunt begint ermee; geef elk laadpunt op een broker een eigen.',
      fr: 'Chaque topic de ce point de charge commence ainsi ; donnez à chaque point de charge du broker le sien.',
    },
    hint: TOPIC_HINT,
  },
  MqttQos: {
    label: { de: 'Dienstgüte (QoS)', nl: 'Servicekwaliteit (QoS)', fr: 'Qualité de service (QoS)' },
    description: {
      de: 'MQTT-QoS des veröffentlichten Zustands, der Discovery-Nachrichten und der Abonnements.',
      nl: 'MQTT-QoS van de gepubliceerde toestand, de discoveryberichten en de abonnementen.',
      fr: "QoS MQTT de l'état publié, des messages de découverte et des abonnements.",
    },
  },
  MqttRetain: {
    label: { de: 'Zustand behalten (retain)', nl: 'Toestand bewaren (retain)', fr: "Conserver l'état (retain)" },
    description: {
      de: 'Ein: Der Broker behält den letzten Zustand für neue Abonnenten. Status- und Discovery-Nachrichten werden immer behalten.',
      nl: 'Aan: de broker bewaart de laatste toestand voor nieuwe abonnees. Status- en discoveryberichten worden altijd bewaard.',
      fr: "Activé : le broker conserve le dernier état pour les nouveaux abonnés. Les messages d'état de connexion et de découverte sont toujours conservés.",
    },
  },
  MqttInterval: {
    label: { de: 'Sendeintervall der Zählerwerte', nl: 'Publicatie-interval meterwaarden', fr: 'Intervalle de publication des mesures' },
    description: {
      de: 'Zählerwerte (Leistung, Energie, Ströme, Temperatur, Dauer) werden höchstens so oft veröffentlicht; Zustände sofort.',
      nl: 'Meterwaarden (vermogen, energie, stromen, temperatuur, duur) worden hoogstens zo vaak gepubliceerd; toestanden direct.',
      fr: 'Les mesures (puissance, énergie, courants, température, durée) sont publiées au plus à cette fréquence ; les états immédiatement.',
    },
  },
  MqttPublishTagIds: {
    label: { de: 'Tag-IDs veröffentlichen', nl: 'Tag-ID’s publiceren', fr: 'Publier les identifiants de badge' },
    description: {
      de: 'Ein: Tag-ID und Benutzer-ID der Transaktion werden veröffentlicht. Aus (Standard): nie, da sie Personen identifizieren.',
      nl: 'Aan: de tag-ID en gebruikers-ID van de transactie worden gepubliceerd. Uit (standaard): nooit, omdat ze personen identificeren.',
      fr: "Activé : l'identifiant du badge et celui de l'utilisateur de la transaction sont publiés. Désactivé (par défaut) : jamais, car ils identifient des personnes.",
    },
  },
  MqttControl: {
    label: { de: 'Steuerung über MQTT', nl: 'Bediening via MQTT', fr: 'Commande par MQTT' },
    description: {
      de: 'Ein: Befehle auf <Basis-Topic>/set/... werden ausgeführt (Laden aktiviert, Maximalstrom, Lastgrenze). Aus: Sie werden abgelehnt.',
      nl: 'Aan: opdrachten op <basistopic>/set/... worden uitgevoerd (laden ingeschakeld, maximale stroom, lastlimiet). Uit: ze worden geweigerd.',
      fr: 'Activé : les commandes sur <topic de base>/set/... sont exécutées (charge activée, courant maximal, limite de charge). Désactivé : elles sont refusées.',
    },
  },
  MqttLoadManagement: {
    label: { de: 'Lastgrenze über MQTT', nl: 'Lastlimiet via MQTT', fr: 'Limite de charge par MQTT' },
    description: {
      de: 'Ein: Die Stromgrenze von <Basis-Topic>/set/LoadLimit gilt; ohne neue innerhalb der Auffrischzeit (und nach einem Start bis zur ersten) gilt der Rückfallstrom.',
      nl: 'Aan: de stroomlimiet van <basistopic>/set/LoadLimit geldt; zonder nieuwe binnen de verversingstijd (en na een start tot de eerste) geldt de terugvalstroom.',
      fr: "Activé : la limite de courant de <topic de base>/set/LoadLimit s'applique ; sans nouvelle limite dans le délai de rafraîchissement (et après un démarrage, jusqu'à la première), le courant de repli s'applique.",
    },
  },
  MqttLoadLimitTimeout: {
    label: { de: 'Auffrischzeit der Lastgrenze', nl: 'Verversingstijd lastlimiet', fr: 'Délai de rafraîchissement de la limite' },
    description: {
      de: 'Eine Lastgrenze, die nicht innerhalb dieser Zeit erneuert wird, ist veraltet: Der Rückfallstrom gilt.',
      nl: 'Een lastlimiet die niet binnen deze tijd wordt vernieuwd, is verouderd: de terugvalstroom geldt.',
      fr: "Une limite de charge non renouvelée dans ce délai est périmée : le courant de repli s'applique.",
    },
  },
  MqttLoadLimitFallback: {
    label: { de: 'Rückfallstrom', nl: 'Terugvalstroom', fr: 'Courant de repli' },
    description: {
      de: 'Die Stromgrenze, solange keine aktuelle Lastgrenze bekannt ist; unter 6 A pausiert das Laden.',
      nl: 'De stroomlimiet zolang er geen actuele lastlimiet bekend is; onder 6 A pauzeert het laden.',
      fr: "La limite de courant tant qu'aucune limite de charge récente n'est connue ; en dessous de 6 A, la charge est suspendue.",
    },
  },
  MqttDiscovery: {
    label: { de: 'Home-Assistant-Discovery', nl: 'Home Assistant-discovery', fr: 'Découverte Home Assistant' },
    description: {
      de: 'Ein: Der Ladepunkt meldet seine Entitäten bei Home Assistant an (und erneut, wenn Home Assistant startet). Aus: Die Anmeldung wird zurückgezogen.',
      nl: 'Aan: het laadpunt meldt zijn entiteiten aan bij Home Assistant (en opnieuw wanneer Home Assistant start). Uit: de aanmelding wordt ingetrokken.',
      fr: 'Activé : le point de charge annonce ses entités à Home Assistant (et à nouveau au démarrage de Home Assistant). Désactivé : l’annonce est retirée.',
    },
  },
  MqttDiscoveryPrefix: {
    label: { de: 'Discovery-Präfix', nl: 'Discoveryprefix', fr: 'Préfixe de découverte' },
    description: {
      de: 'Topic-Präfix der Home-Assistant-Discovery.',
      nl: 'Topicprefix van Home Assistant-discovery.',
      fr: 'Préfixe de topic de la découverte Home Assistant.',
    },
    hint: TOPIC_HINT,
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
  ocppauth: { de: 'OCPP-Autorisierung', nl: 'OCPP-autorisatie', fr: 'Autorisation OCPP' },
  mqtt: { de: 'MQTT', nl: 'MQTT', fr: 'MQTT' },
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
  'At most once (0)': { de: 'Höchstens einmal (0)', nl: 'Hoogstens één keer (0)', fr: 'Au plus une fois (0)' },
  'At least once (1)': { de: 'Mindestens einmal (1)', nl: 'Minstens één keer (1)', fr: 'Au moins une fois (1)' },
  'Exactly once (2)': { de: 'Genau einmal (2)', nl: 'Precies één keer (2)', fr: 'Exactement une fois (2)' },
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
