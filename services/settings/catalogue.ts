import { CHARGING_SETTINGS } from '../charging-settings.js';
import { ENERGY_MODE_SETTINGS, SCHEDULE_SETTINGS, SOLAR_SETTINGS } from '../energy/settings.js';
import { ENERGY_INPUT_SETTINGS } from '../energy/input-settings.js';
import { EVENT_LOG_SETTINGS } from '../event-log-settings.js';
import { UPDATE_SETTINGS } from '../field-service/update-settings.js';
import { SITE_SETTINGS } from '../energy/site-settings.js';
import { TIME_ZONE_SETTINGS } from '../time-zone-settings.js';
import { I18N_SETTINGS } from '../i18n-settings.js';
import { LOGGER_SETTINGS } from '../logger-settings.js';
import { MQTT_SETTINGS } from '../mqtt/settings.js';
import { NETWORK_SETTINGS } from '../network-settings.js';
import { NFC_SETTINGS } from '../nfc-settings.js';
import { OCPP_AUTHORIZATION_SETTINGS, OCPP_CONNECTION_SETTINGS, OCPP_PROTOCOL_SETTINGS } from '../ocpp/settings.js';
import { WHITELIST_SETTINGS } from '../whitelist-settings.js';
import { IDENTITY_SETTINGS } from './identity.js';
import type { Declaration, FieldDef, Text, ValueOf } from './types.js';

export type { EnumOption, FieldDef, SettingValue } from './types.js';

/**
 * The settings catalogue: the features' declarations (each beside its feature's code, see services/settings/types.ts)
 * gathered in the groups and sub-groups the API shows, in that order. It is the single source for storage
 * (defaults, keys), validation, access (roles), reboot rules, the app endpoints and the documentation
 * (docs/settings.md is generated from it). The spec shows the shape of settings (2.7) but not the list; this list is
 * what a type 2 AC charge controller of this class has.
 */

const DECLARED = {
  ...NETWORK_SETTINGS,
  ...OCPP_CONNECTION_SETTINGS,
  ...OCPP_PROTOCOL_SETTINGS,
  ...OCPP_AUTHORIZATION_SETTINGS,
  ...MQTT_SETTINGS,
  ...NFC_SETTINGS,
  ...CHARGING_SETTINGS,
  ...ENERGY_MODE_SETTINGS,
  ...SOLAR_SETTINGS,
  ...SCHEDULE_SETTINGS,
  ...ENERGY_INPUT_SETTINGS,
  ...SITE_SETTINGS,
  ...WHITELIST_SETTINGS,
  ...I18N_SETTINGS,
  ...TIME_ZONE_SETTINGS,
  ...IDENTITY_SETTINGS,
  ...LOGGER_SETTINGS,
  ...EVENT_LOG_SETTINGS,
  ...UPDATE_SETTINGS,
};
type Declared = typeof DECLARED;

/** The key of a setting. */
export type SettingKey = keyof Declared;
/** The value of the setting `K`, typed by its declaration. */
export type SettingValueOf<K extends SettingKey> = ValueOf<Declared[K]>;
/** The settings' values by key (what `settings.get` answers). */
export type SettingValues = { [K in SettingKey]: SettingValueOf<K> };

export const GROUP_KEYS = ['network', 'backend', 'authorization', 'whitelists', 'loadmanagement', 'installation', 'system', 'devel'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];
/** Spec 2.7 fixes the group labels as an enum of English names: the same in every language. */
export const GROUP_LABELS: Record<GroupKey, string> = {
  network: 'Network',
  backend: 'Backend',
  authorization: 'Authorization',
  whitelists: 'Whitelists',
  loadmanagement: 'Load Management',
  installation: 'Installation',
  system: 'System',
  devel: 'Development',
};

/** Where each setting is shown: groups, their sub-groups (labels in every language) and their fields, in order. */
const LAYOUT: { key: GroupKey; sub_groups: { key: string; label: Text; fields: (keyof Declared)[] }[] }[] = [
  {
    key: 'network',
    sub_groups: [
      { key: 'lan', label: { gb: 'LAN', de: 'LAN', nl: 'LAN', fr: 'LAN' }, fields: ['LanMode', 'LanIpAddress', 'LanNetmask', 'LanGateway'] },
      { key: 'gsm', label: { gb: 'GSM', de: 'GSM', nl: 'GSM', fr: 'GSM' }, fields: ['GsmEnabled', 'GsmApn'] },
    ],
  },
  {
    key: 'backend',
    sub_groups: [
      { key: 'connection', label: { gb: 'Connection', de: 'Verbindung', nl: 'Verbinding', fr: 'Connexion' }, fields: keys(OCPP_CONNECTION_SETTINGS) },
      { key: 'ocpp', label: { gb: 'OCPP', de: 'OCPP', nl: 'OCPP', fr: 'OCPP' }, fields: keys(OCPP_PROTOCOL_SETTINGS) },
      {
        key: 'ocppauth',
        label: { gb: 'OCPP Authorization', de: 'OCPP-Autorisierung', nl: 'OCPP-autorisatie', fr: 'Autorisation OCPP' },
        fields: keys(OCPP_AUTHORIZATION_SETTINGS),
      },
      { key: 'mqtt', label: { gb: 'MQTT', de: 'MQTT', nl: 'MQTT', fr: 'MQTT' }, fields: keys(MQTT_SETTINGS) },
    ],
  },
  {
    key: 'authorization',
    sub_groups: [
      {
        key: 'rfid',
        label: { gb: 'RFID Settings', de: 'RFID-Einstellungen', nl: 'RFID-instellingen', fr: 'Paramètres RFID' },
        fields: ['RFIDMode', 'AuthTimeout'],
      },
      { key: 'freecharging', label: { gb: 'Free Charging', de: 'Freies Laden', nl: 'Vrij laden', fr: 'Recharge libre' }, fields: ['FreeCharging'] },
    ],
  },
  {
    key: 'whitelists',
    sub_groups: [
      { key: 'local', label: { gb: 'Local Whitelist', de: 'Lokale Whitelist', nl: 'Lokale whitelist', fr: 'Liste blanche locale' }, fields: ['FLLEnabled'] },
    ],
  },
  {
    key: 'loadmanagement',
    sub_groups: [
      {
        key: 'currentlimits',
        label: { gb: 'Current Limits', de: 'Stromgrenzen', nl: 'Stroomlimieten', fr: 'Limites de courant' },
        fields: ['MaxCurrent', 'PhaseCurrentLimits'],
      },
      { key: 'mode', label: { gb: 'Charging Mode', de: 'Lademodus', nl: 'Laadmodus', fr: 'Mode de charge' }, fields: keys(ENERGY_MODE_SETTINGS) },
      { key: 'solar', label: { gb: 'Solar', de: 'Solar', nl: 'Zon', fr: 'Solaire' }, fields: keys(SOLAR_SETTINGS) },
      {
        key: 'schedule',
        label: { gb: 'Schedule and Session Limits', de: 'Zeitplan und Sitzungsgrenzen', nl: 'Schema en sessielimieten', fr: 'Horaire et limites de session' },
        fields: keys(SCHEDULE_SETTINGS),
      },
      {
        key: 'energyinputs',
        label: { gb: 'Energy inputs', de: 'Energie-Eingänge', nl: 'Energie-ingangen', fr: "Entrées d'énergie" },
        fields: keys(ENERGY_INPUT_SETTINGS),
      },
      { key: 'site', label: { gb: 'Site', de: 'Standort', nl: 'Locatie', fr: 'Site' }, fields: keys(SITE_SETTINGS) },
    ],
  },
  {
    key: 'installation',
    sub_groups: [
      {
        key: 'connector',
        label: { gb: 'Connector', de: 'Ladeanschluss', nl: 'Connector', fr: 'Connecteur' },
        fields: ['ChargingEnabled', 'Phases', 'PhaseSwitchMode', 'Ventilation'],
      },
    ],
  },
  {
    key: 'system',
    sub_groups: [
      { key: 'language', label: { gb: 'Language', de: 'Sprache', nl: 'Taal', fr: 'Langue' }, fields: ['Language'] },
      { key: 'time', label: { gb: 'Time', de: 'Zeit', nl: 'Tijd', fr: 'Heure' }, fields: keys(TIME_ZONE_SETTINGS) },
      { key: 'info', label: { gb: 'Information', de: 'Information', nl: 'Informatie', fr: 'Informations' }, fields: keys(IDENTITY_SETTINGS) },
      {
        key: 'logging',
        label: { gb: 'Logging', de: 'Protokollierung', nl: 'Logboek', fr: 'Journalisation' },
        fields: ['LogLevel', ...keys(EVENT_LOG_SETTINGS)],
      },
      { key: 'updates', label: { gb: 'Updates', de: 'Updates', nl: 'Updates', fr: 'Mises à jour' }, fields: keys(UPDATE_SETTINGS) },
    ],
  },
  {
    key: 'devel',
    sub_groups: [{ key: 'diagnostics', label: { gb: 'Diagnostics', de: 'Diagnose', nl: 'Diagnose', fr: 'Diagnostic' }, fields: ['PilotDebounce'] }],
  },
];

function keys<T extends object>(settings: T): (keyof T & string)[] {
  return Object.keys(settings) as (keyof T & string)[];
}

/** A declaration as the mechanism uses it: English texts where the API's shape has them, every language beside. */
function fieldOf(key: string, d: Declaration): FieldDef {
  const base = {
    key,
    label: d.label.gb,
    description: d.description.gb,
    role: d.role,
    mode: d.mode ?? 'rw',
    texts: { label: d.label, description: d.description, ...(d.type === 'string' && d.hint ? { hint: d.hint } : {}) },
    ...(d.writeRole ? { writeRole: d.writeRole } : {}),
    ...(d.parents ? { parents: d.parents.map((p) => ({ name: p.name, value: [...p.value] })) } : {}),
    ...(d.unit ? { unit: d.unit } : {}),
    ...(d.reboot ? { reboot: true } : {}),
    ...(d.app ? { app: true } : {}),
    ...(d.writeOnly ? { writeOnly: true } : {}),
  };
  switch (d.type) {
    case 'string': {
      const hint = d.hint ? { patternHint: d.hint.gb.replace('{default}', d.default) } : {};
      return {
        ...base,
        type: 'string',
        default: d.default,
        length: [...d.length],
        ...(d.pattern ? { pattern: d.pattern } : {}),
        ...(d.accepts ? { accepts: d.accepts } : {}),
        ...hint,
      };
    }
    case 'int':
      return { ...base, type: 'int', default: d.default, range: [...d.range] };
    case 'enum':
      return { ...base, type: 'enum', default: d.default, options: d.options.map((o) => ({ value: o.value, label: o.label.gb, text: o.label })) };
    case 'triple':
      return { ...base, type: 'triple', default: [...d.default], range: [...d.range] };
  }
}

export interface SubGroupDef {
  key: string;
  /** English. */
  label: string;
  texts: Text;
  fields: FieldDef[];
}

export interface GroupDef {
  key: GroupKey;
  sub_groups: SubGroupDef[];
}

export const CATALOGUE: GroupDef[] = LAYOUT.map((g) => ({
  key: g.key,
  sub_groups: g.sub_groups.map((sg) => ({
    key: sg.key,
    label: sg.label.gb,
    texts: sg.label,
    fields: sg.fields.map((key) => fieldOf(key, DECLARED[key] as Declaration)),
  })),
}));

/** Every field by key. */
export const FIELDS: ReadonlyMap<string, FieldDef & { group: GroupKey; subGroup: string }> = new Map(
  CATALOGUE.flatMap((g) => g.sub_groups.flatMap((sg) => sg.fields.map((f) => [f.key, { ...f, group: g.key, subGroup: sg.key }] as const))),
);

// Every declared setting is shown exactly once: one left out would be stored but never shown or documented.
const placed = CATALOGUE.flatMap((g) => g.sub_groups.flatMap((sg) => sg.fields.map((f) => f.key)));
const unplaced = Object.keys(DECLARED).filter((k) => placed.filter((p) => p === k).length !== 1);
if (unplaced.length || placed.length !== Object.keys(DECLARED).length)
  throw new Error(`settings not placed exactly once in the catalogue: ${unplaced.join(', ')}`);
