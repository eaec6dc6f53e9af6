import { declare } from '../settings/types.js';

/**
 * The settings of energy management (group Load Management; docs/energy.md gives each default's reasoning), read by
 * the allocator loop (services/energy/manager.ts) at every step, so a change acts within a second.
 */

/** `ChargingMode`'s values, in the allocator's words. */
export const MODE_OF = { 0: 'fast', 1: 'solar', 2: 'minSolar' } as const;

export const ENERGY_MODE_SETTINGS = declare({
  ChargingMode: {
    label: { gb: 'Charging mode', de: 'Lademodus', nl: 'Laadmodus', fr: 'Mode de charge' },
    description: {
      gb: 'Fast: every limit but solar. Solar: only the solar surplus. Min + Solar: 6 A from the grid plus the surplus.',
      de: 'Schnell: alle Grenzen außer Solar. Solar: nur der Solarüberschuss. Min + Solar: 6 A aus dem Netz plus der Überschuss.',
      nl: 'Snel: elke limiet behalve zon. Zon: alleen het zonne-overschot. Min + Zon: 6 A van het net plus het overschot.',
      fr: 'Rapide : toutes les limites sauf le solaire. Solaire : seulement le surplus solaire. Min + Solaire : 6 A du réseau plus le surplus.',
    },
    type: 'enum',
    options: [
      { value: 0, label: { gb: 'Fast', de: 'Schnell', nl: 'Snel', fr: 'Rapide' } },
      { value: 1, label: { gb: 'Solar', de: 'Solar', nl: 'Zon', fr: 'Solaire' } },
      { value: 2, label: { gb: 'Min + Solar', de: 'Min + Solar', nl: 'Min + Zon', fr: 'Min + Solaire' } },
    ],
    default: 0,
    role: 'user',
    writeRole: 'operator',
    app: true,
  },
});

export const SOLAR_SETTINGS = declare({
  SolarStartMargin: {
    label: { gb: 'Solar start margin', de: 'Solar-Startreserve', nl: 'Startmarge zon', fr: 'Marge de démarrage solaire' },
    description: {
      gb: 'Charging starts when the surplus exceeds the minimum charging power (6 A) by this much.',
      de: 'Das Laden beginnt, wenn der Überschuss die minimale Ladeleistung (6 A) um so viel übersteigt.',
      nl: 'Het laden start wanneer het overschot het minimale laadvermogen (6 A) met zoveel overschrijdt.',
      fr: 'La charge démarre quand le surplus dépasse de cette valeur la puissance de charge minimale (6 A).',
    },
    type: 'int',
    range: [0, 5000],
    default: 200,
    unit: 'W',
    role: 'installer',
  },
  SolarStopMargin: {
    label: { gb: 'Solar stop margin', de: 'Solar-Stoppreserve', nl: 'Stopmarge zon', fr: "Marge d'arrêt solaire" },
    description: {
      gb: 'Charging stops when the surplus falls this much below the minimum charging power: the grid import tolerated.',
      de: 'Das Laden stoppt, wenn der Überschuss so weit unter die minimale Ladeleistung fällt: der geduldete Netzbezug.',
      nl: 'Het laden stopt wanneer het overschot zoveel onder het minimale laadvermogen zakt: de toegestane netafname.',
      fr: "La charge s'arrête quand le surplus descend de cette valeur sous la puissance minimale : le soutirage toléré.",
    },
    type: 'int',
    range: [0, 5000],
    default: 300,
    unit: 'W',
    role: 'installer',
  },
  SolarStartDelay: {
    label: { gb: 'Solar start delay', de: 'Solar-Startverzögerung', nl: 'Startvertraging zon', fr: 'Délai de démarrage solaire' },
    description: {
      gb: 'The surplus must stay above the start threshold this long.',
      de: 'So lange muss der Überschuss über der Startschwelle bleiben.',
      nl: 'Zo lang moet het overschot boven de startdrempel blijven.',
      fr: 'Durée pendant laquelle le surplus doit rester au-dessus du seuil de démarrage.',
    },
    type: 'int',
    range: [0, 3600],
    default: 60,
    unit: 's',
    role: 'installer',
  },
  SolarStopDelay: {
    label: { gb: 'Solar stop delay', de: 'Solar-Stoppverzögerung', nl: 'Stopvertraging zon', fr: "Délai d'arrêt solaire" },
    description: {
      gb: 'The surplus must stay below the stop threshold this long (a passing cloud stops nothing).',
      de: 'So lange muss der Überschuss unter der Stoppschwelle bleiben (eine vorbeiziehende Wolke stoppt nichts).',
      nl: 'Zo lang moet het overschot onder de stopdrempel blijven (een voorbijtrekkende wolk stopt niets).',
      fr: "Durée pendant laquelle le surplus doit rester sous le seuil d'arrêt (un nuage passager n'arrête rien).",
    },
    type: 'int',
    range: [0, 3600],
    default: 300,
    unit: 's',
    role: 'installer',
  },
  SolarMinChargeTime: {
    label: { gb: 'Minimum charge time', de: 'Minimale Ladezeit', nl: 'Minimale laadtijd', fr: 'Durée de charge minimale' },
    description: {
      gb: 'Once solar charging started, it goes on at least this long.',
      de: 'Einmal gestartet, läuft das Solarladen mindestens so lange.',
      nl: 'Eenmaal gestart, loopt het laden op zonne-energie minstens zo lang.',
      fr: 'Une fois démarrée, la charge solaire dure au moins ce temps.',
    },
    type: 'int',
    range: [0, 7200],
    default: 600,
    unit: 's',
    role: 'installer',
  },
  SolarMinPause: {
    label: { gb: 'Minimum pause', de: 'Minimale Pause', nl: 'Minimale pauze', fr: 'Pause minimale' },
    description: {
      gb: 'Once solar charging stopped, it starts again at the earliest after this time.',
      de: 'Einmal gestoppt, startet das Solarladen frühestens nach dieser Zeit wieder.',
      nl: 'Eenmaal gestopt, start het laden op zonne-energie op zijn vroegst na deze tijd opnieuw.',
      fr: 'Une fois arrêtée, la charge solaire ne redémarre qu’après ce délai au plus tôt.',
    },
    type: 'int',
    range: [0, 7200],
    default: 600,
    unit: 's',
    role: 'installer',
  },
  RampUp: {
    label: { gb: 'Ramp up', de: 'Anstiegsrate', nl: 'Oploopsnelheid', fr: 'Rampe de montée' },
    description: {
      gb: 'The most the offered current rises per second while a vehicle is connected; it falls at once.',
      de: 'Um so viel steigt der angebotene Strom höchstens je Sekunde, solange ein Fahrzeug angeschlossen ist; er fällt sofort.',
      nl: 'Zoveel stijgt de aangeboden stroom hoogstens per seconde zolang een voertuig is aangesloten; hij daalt meteen.',
      fr: 'Hausse maximale du courant offert par seconde tant qu’un véhicule est branché ; il baisse immédiatement.',
    },
    type: 'int',
    range: [1, 26],
    default: 2,
    unit: 'A',
    role: 'installer',
  },
});

/** Weekly windows: `Mo-Fr 22:00-06:00, Sa-Su 00:00-24:00` (services/energy/schedule.ts); empty: always. */
const WINDOWS =
  /^$|^\s*(Mo|Tu|We|Th|Fr|Sa|Su)(-(Mo|Tu|We|Th|Fr|Sa|Su))?\s+([01]\d|2[0-3]):[0-5]\d-(([01]\d|2[0-3]):[0-5]\d|24:00)\s*(,\s*(Mo|Tu|We|Th|Fr|Sa|Su)(-(Mo|Tu|We|Th|Fr|Sa|Su))?\s+([01]\d|2[0-3]):[0-5]\d-(([01]\d|2[0-3]):[0-5]\d|24:00)\s*)*$/;

export const SCHEDULE_SETTINGS = declare({
  ChargingSchedule: {
    label: { gb: 'Charging schedule', de: 'Ladezeitplan', nl: 'Laadschema', fr: 'Plage de charge' },
    description: {
      gb: "Weekly time windows when charging is allowed, in the controller's time zone; empty: always.",
      de: 'Wöchentliche Zeitfenster, in denen geladen werden darf, in der Zeitzone des Controllers; leer: immer.',
      nl: 'Wekelijkse tijdvensters waarin laden is toegestaan, in de tijdzone van de controller; leeg: altijd.',
      fr: 'Plages hebdomadaires où la charge est permise, dans le fuseau horaire du contrôleur ; vide : toujours.',
    },
    type: 'string',
    length: [0, 255],
    pattern: WINDOWS,
    hint: {
      gb: 'Day or day range and time window, comma-separated, e.g. Mo-Fr 22:00-06:00, Sa-Su 00:00-24:00',
      de: 'Tag oder Tagesbereich und Zeitfenster, durch Kommas getrennt, z. B. Mo-Fr 22:00-06:00, Sa-Su 00:00-24:00',
      nl: 'Dag of dagbereik en tijdvenster, gescheiden door komma’s, bijv. Mo-Fr 22:00-06:00, Sa-Su 00:00-24:00',
      fr: 'Jour ou plage de jours et plage horaire, séparés par des virgules, p. ex. Mo-Fr 22:00-06:00, Sa-Su 00:00-24:00',
    },
    default: '',
    role: 'user',
    writeRole: 'operator',
  },
  DepartureTime: {
    label: { gb: 'Departure time', de: 'Abfahrtszeit', nl: 'Vertrektijd', fr: 'Heure de départ' },
    description: {
      gb: 'With a departure energy: the vehicle gets that energy by this time (HH:MM), from the sun first; empty: off.',
      de: 'Mit einer Abfahrtsenergie: Das Fahrzeug erhält diese Energie bis zu dieser Zeit (HH:MM), zuerst aus der Sonne; leer: aus.',
      nl: 'Met een vertrekenergie: het voertuig krijgt die energie vóór dit tijdstip (UU:MM), eerst van de zon; leeg: uit.',
      fr: "Avec une énergie au départ : le véhicule reçoit cette énergie avant cette heure (HH:MM), d'abord du soleil ; vide : désactivé.",
    },
    type: 'string',
    length: [0, 5],
    pattern: /^$|^([01]\d|2[0-3]):[0-5]\d$/,
    hint: { gb: 'HH:MM, e.g. 07:30', de: 'HH:MM, z. B. 07:30', nl: 'UU:MM, bijv. 07:30', fr: 'HH:MM, p. ex. 07:30' },
    default: '',
    role: 'user',
    writeRole: 'operator',
    app: true,
  },
  DepartureEnergy: {
    label: { gb: 'Departure energy', de: 'Abfahrtsenergie', nl: 'Vertrekenergie', fr: 'Énergie au départ' },
    description: {
      gb: 'Energy the session must have charged by the departure time; 0: off.',
      de: 'Energie, die die Sitzung bis zur Abfahrtszeit geladen haben muss; 0: aus.',
      nl: 'Energie die de sessie vóór de vertrektijd moet hebben geladen; 0: uit.',
      fr: "Énergie que la session doit avoir chargée à l'heure de départ ; 0 : désactivé.",
    },
    type: 'int',
    range: [0, 200],
    default: 0,
    unit: 'kWh',
    role: 'user',
    writeRole: 'operator',
    app: true,
  },
  SessionEnergyLimit: {
    label: { gb: 'Session energy limit', de: 'Energiegrenze je Sitzung', nl: 'Energielimiet per sessie', fr: 'Limite d’énergie par session' },
    description: {
      gb: 'A session that charged this much is paused until the vehicle is unplugged; 0: off.',
      de: 'Eine Sitzung, die so viel geladen hat, pausiert bis zum Ausstecken; 0: aus.',
      nl: 'Een sessie die zoveel heeft geladen pauzeert tot het voertuig wordt losgekoppeld; 0: uit.',
      fr: 'Une session ayant chargé cette énergie est suspendue jusqu’au débranchement ; 0 : désactivé.',
    },
    type: 'int',
    range: [0, 200],
    default: 0,
    unit: 'kWh',
    role: 'user',
    writeRole: 'operator',
    app: true,
  },
  SessionDurationLimit: {
    label: { gb: 'Session duration limit', de: 'Dauergrenze je Sitzung', nl: 'Duurlimiet per sessie', fr: 'Limite de durée par session' },
    description: {
      gb: 'A session this long is paused until the vehicle is unplugged; 0: off.',
      de: 'Eine so lange Sitzung pausiert bis zum Ausstecken; 0: aus.',
      nl: 'Een sessie van deze duur pauzeert tot het voertuig wordt losgekoppeld; 0: uit.',
      fr: 'Une session de cette durée est suspendue jusqu’au débranchement ; 0 : désactivé.',
    },
    type: 'int',
    range: [0, 1440],
    default: 0,
    unit: 'min',
    role: 'user',
    writeRole: 'operator',
    app: true,
  },
});
