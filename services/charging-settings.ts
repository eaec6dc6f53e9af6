import { declare, onOff } from './settings/types.js';

/**
 * The settings of the charge cycle and the charge point: authorization timeout, free charging, current limits, the
 * connector's installation, and the core's control pilot debounce (read by services/apply-settings.ts and the
 * composition root).
 */
export const CHARGING_SETTINGS = declare({
  AuthTimeout: {
    label: { gb: 'Authorization timeout', de: 'Autorisierungs-Zeitlimit', nl: 'Time-out autorisatie', fr: "Délai d'autorisation" },
    description: {
      gb: 'How long a tag presented before plugging in stays valid.',
      de: 'Wie lange ein vor dem Einstecken vorgehaltener Tag gültig bleibt.',
      nl: 'Hoe lang een tag die vóór het aansluiten werd aangeboden geldig blijft.',
      fr: "Durée de validité d'un badge présenté avant le branchement.",
    },
    type: 'int',
    range: [5, 600],
    default: 30,
    unit: 's',
    role: 'operator',
    app: true,
  },
  FreeCharging: onOff({
    label: { gb: 'Free charging', de: 'Freies Laden', nl: 'Vrij laden', fr: 'Recharge libre' },
    description: {
      gb: 'On: every vehicle charges when plugged in, without a tag.',
      de: 'Ein: Jedes Fahrzeug lädt beim Einstecken, ohne Tag.',
      nl: 'Aan: elk voertuig laadt zodra het is aangesloten, zonder tag.',
      fr: "Activé : tout véhicule se recharge dès qu'il est branché, sans badge.",
    },
    default: 0,
    role: 'user',
    writeRole: 'operator',
    app: true,
  }),
  MaxCurrent: {
    label: { gb: 'Maximum current', de: 'Maximaler Strom', nl: 'Maximale stroom', fr: 'Courant maximal' },
    description: {
      gb: 'The highest current per phase announced to the vehicle (PWM duty).',
      de: 'Der höchste Strom je Phase, der dem Fahrzeug signalisiert wird (PWM-Tastgrad).',
      nl: 'De hoogste stroom per fase die aan het voertuig wordt gemeld (PWM-duty cycle).',
      fr: 'Le courant maximal par phase annoncé au véhicule (rapport cyclique PWM).',
    },
    type: 'int',
    range: [6, 32],
    default: 16,
    unit: 'A',
    role: 'user',
    writeRole: 'operator',
    app: true,
  },
  PhaseCurrentLimits: {
    label: { gb: 'Supply limits per phase', de: 'Anschlussgrenzen je Phase', nl: 'Aansluitlimieten per fase', fr: "Limites d'alimentation par phase" },
    description: {
      gb: 'Limits of the supply on L1, L2, L3; the announced current never exceeds the lowest.',
      de: 'Grenzen der Zuleitung auf L1, L2, L3; der signalisierte Strom überschreitet nie die niedrigste.',
      nl: 'Limieten van de voeding op L1, L2, L3; de gemelde stroom komt nooit boven de laagste.',
      fr: "Limites de l'alimentation sur L1, L2, L3 ; le courant annoncé ne dépasse jamais la plus basse.",
    },
    type: 'triple',
    range: [6, 80],
    default: [32, 32, 32],
    unit: 'A',
    role: 'installer',
  },
  ChargingEnabled: onOff({
    label: { gb: 'Charging enabled', de: 'Laden freigegeben', nl: 'Laden ingeschakeld', fr: 'Recharge activée' },
    description: {
      gb: 'Off: the charge point is unavailable; a running charge is stopped.',
      de: 'Aus: Der Ladepunkt ist nicht verfügbar; ein laufender Ladevorgang wird beendet.',
      nl: 'Uit: het laadpunt is niet beschikbaar; een lopende laadsessie wordt gestopt.',
      fr: 'Désactivé : le point de charge est indisponible ; une recharge en cours est arrêtée.',
    },
    default: 1,
    role: 'operator',
    app: true,
  }),
  Phases: {
    label: { gb: 'Phases', de: 'Phasen', nl: 'Fasen', fr: 'Phases' },
    description: {
      gb: 'Phases wired to the connector and the meter.',
      de: 'An Ladeanschluss und Zähler angeschlossene Phasen.',
      nl: 'Fasen aangesloten op de connector en de meter.',
      fr: 'Phases raccordées au connecteur et au compteur.',
    },
    type: 'enum',
    options: [
      { value: 1, label: { gb: '1 phase', de: '1 Phase', nl: '1 fase', fr: '1 phase' } },
      { value: 3, label: { gb: '3 phases', de: '3 Phasen', nl: '3 fasen', fr: '3 phases' } },
    ],
    default: 3,
    role: 'installer',
    reboot: true,
  },
  PhaseSwitchMode: {
    label: { gb: 'Phase switching', de: 'Phasenumschaltung', nl: 'Faseomschakeling', fr: 'Commutation de phases' },
    description: {
      gb: 'With a phase contactor (GPIO_PHASE_SWITCH): automatic (one phase below 3 × 6 A), always one phase, always three, or never switch.',
      de: 'Mit Phasenschütz (GPIO_PHASE_SWITCH): automatisch (eine Phase unter 3 × 6 A), immer eine Phase, immer drei oder nie umschalten.',
      nl: 'Met fasecontactor (GPIO_PHASE_SWITCH): automatisch (één fase onder 3 × 6 A), altijd één fase, altijd drie, of nooit omschakelen.',
      fr: 'Avec contacteur de phases (GPIO_PHASE_SWITCH) : automatique (une phase sous 3 × 6 A), toujours une, toujours trois, ou jamais.',
    },
    type: 'enum',
    options: [
      { value: 0, label: { gb: 'Automatic', de: 'Automatisch', nl: 'Automatisch', fr: 'Automatique' } },
      { value: 1, label: { gb: 'Always 1 phase', de: 'Immer 1 Phase', nl: 'Altijd 1 fase', fr: 'Toujours 1 phase' } },
      { value: 2, label: { gb: 'Always 3 phases', de: 'Immer 3 Phasen', nl: 'Altijd 3 fasen', fr: 'Toujours 3 phases' } },
      { value: 3, label: { gb: 'Never switch', de: 'Nie umschalten', nl: 'Nooit omschakelen', fr: 'Jamais de commutation' } },
    ],
    default: 0,
    role: 'installer',
  },
  Ventilation: onOff({
    label: { gb: 'Ventilation', de: 'Belüftung', nl: 'Ventilatie', fr: 'Ventilation' },
    description: {
      gb: 'On: the installation ventilates, so vehicles requesting ventilation (CP state D) may charge.',
      de: 'Ein: Die Anlage ist belüftet, daher dürfen Fahrzeuge laden, die Belüftung anfordern (CP-Zustand D).',
      nl: 'Aan: de installatie wordt geventileerd, dus voertuigen die ventilatie vragen (CP-toestand D) mogen laden.',
      fr: "Activé : l'installation est ventilée, les véhicules demandant une ventilation (état CP D) peuvent donc charger.",
    },
    default: 0,
    role: 'installer',
  }),
  PilotDebounce: {
    label: { gb: 'Control pilot debounce', de: 'Entprellung Control Pilot', nl: 'Ontdendering control pilot', fr: 'Anti-rebond du Control Pilot' },
    description: {
      gb: 'Time a control pilot level must be stable before the charge cycle acts on it.',
      de: 'Zeit, die ein Control-Pilot-Pegel stabil sein muss, bevor der Ladezyklus darauf reagiert.',
      nl: 'Tijd dat een control-pilotniveau stabiel moet zijn voordat de laadcyclus erop reageert.',
      fr: "Durée pendant laquelle un niveau du Control Pilot doit être stable avant que le cycle de charge n'y réagisse.",
    },
    type: 'int',
    range: [10, 100],
    default: 40,
    unit: 'ms',
    role: 'manufacturer',
    reboot: true,
  },
});
