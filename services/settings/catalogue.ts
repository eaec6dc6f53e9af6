import type { Role } from '../../db/schema.js';
import { LANGUAGES } from '../i18n.js';
import { NETMASKS } from '../network.js';

/**
 * The settings catalogue: every parameter the controller has, the single source for storage (defaults, keys),
 * validation (type, length, range, options), access (roles), reboot rules, the app endpoints and the documentation
 * (docs/settings.md is generated from it). The spec shows the shape of settings (2.7) but not the list; this list is
 * what a type 2 AC charge controller of this class has.
 */

export const GROUP_KEYS = ['network', 'backend', 'authorization', 'whitelists', 'loadmanagement', 'installation', 'system', 'devel'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];
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

export interface EnumOption {
  value: number;
  label: string;
}

interface FieldBase {
  key: string;
  label: string;
  description: string;
  /** Lowest role that sees the field. */
  role: Role;
  /** Lowest role that may change it (default: `role`); read-only fields cannot be changed by anyone. */
  writeRole?: Role;
  mode: 'rw' | 'ro';
  /** Shown only when each parent parameter has one of the listed values (enums: option values). */
  parents?: { name: string; value: (string | number)[] }[];
  unit?: string;
  /** A change takes effect after a restart (`reboot_required`). */
  reboot?: boolean;
  /** Part of /v1/app_settings (the smartphone app's view). */
  app?: boolean;
  /**
   * Write-only (a password): the API never shows the value (`value` and `default` are empty; the extension `isSet`
   * says whether one is stored), and nothing else shows or logs it.
   */
  writeOnly?: boolean;
}

export type FieldDef =
  | (FieldBase & { type: 'string'; default: string; length: [number, number]; pattern?: RegExp; patternHint?: string })
  | (FieldBase & { type: 'int'; default: number; range: [number, number] })
  | (FieldBase & { type: 'enum'; default: number; options: EnumOption[] })
  | (FieldBase & { type: 'triple'; default: [number, number, number]; range: [number, number] });

export interface SubGroupDef {
  key: string;
  label: string;
  fields: FieldDef[];
}

export interface GroupDef {
  key: GroupKey;
  sub_groups: SubGroupDef[];
}

const OFF_ON: EnumOption[] = [
  { value: 0, label: 'Off' },
  { value: 1, label: 'On' },
];

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

type Common = Omit<FieldBase, 'mode'>;

/** A changeable enum whose options are numbered 0, 1, 2… in the order of their labels. */
const choice = (f: Common & { options: string[]; default: number }): FieldDef => ({
  ...f,
  type: 'enum',
  options: f.options.map((label, value) => ({ value, label })),
  mode: 'rw',
});

/** An Off/On switch (enum 0/1), changeable. */
const onOff = (f: Common & { default: 0 | 1 }): FieldDef => ({ ...f, type: 'enum', options: OFF_ON, mode: 'rw' });

/** An IPv4 address of the static LAN configuration (shown when the assignment is static; needs a reboot). */
const staticIpv4 = (f: Pick<FieldBase, 'key' | 'label' | 'description'> & { default: string }): FieldDef => ({
  key: f.key,
  label: f.label,
  description: f.description,
  type: 'string',
  length: [7, 15],
  pattern: IPV4,
  patternHint: `an IPv4 address such as ${f.default}`,
  default: f.default,
  mode: 'rw',
  role: 'operator',
  parents: [{ name: 'LanMode', value: [1] }],
  reboot: true,
});
const PRINTABLE = /^[\x20-\x7e]*$/;

/** A setting of the OCPP backend: installers change it; shown while OcppEnabled is on. */
const ocppField = (f: Omit<Common, 'role' | 'parents'> & DistributiveOmit<FieldDef, keyof FieldBase | 'mode'>): FieldDef =>
  ({ ...f, mode: 'rw', role: 'installer', parents: [{ name: 'OcppEnabled', value: [1] }] }) as FieldDef;
/** An Off/On switch of the OCPP backend. */
const ocppSwitch = (f: Pick<FieldBase, 'key' | 'label' | 'description'> & { default: 0 | 1 }): FieldDef => ({
  ...onOff({ ...f, role: 'installer' }),
  parents: [{ name: 'OcppEnabled', value: [1] }],
});
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** MQTT topic levels: no wildcard (`+`, `#`), no empty level, no leading `$` (broker topics), no white space. */
const TOPIC = /^(?!\$)[^\s+#/]+(\/[^\s+#/]+)*$/;
/** An MQTT broker URL without credentials (they are the user and password settings) and without a path. */
const BROKER_URL = /^$|^mqtts?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:(6553[0-5]|655[0-2]\d|65[0-4]\d\d|6[0-4]\d{3}|[1-5]\d{4}|[1-9]\d{0,3}))?\/?$/;
const MQTT_ON = [{ name: 'MqttEnabled', value: [1] }];
const MQTT_CONTROL = [...MQTT_ON, { name: 'MqttControl', value: [1] }];
const MQTT_LOAD = [...MQTT_CONTROL, { name: 'MqttLoadManagement', value: [1] }];
const MQTT_DISCOVERY = [...MQTT_ON, { name: 'MqttDiscovery', value: [1] }];

export const CATALOGUE: GroupDef[] = [
  {
    key: 'network',
    sub_groups: [
      {
        key: 'lan',
        label: 'LAN',
        fields: [
          choice({ key: 'LanMode', label: 'IP address assignment', description: 'DHCP: the controller gets its address from the network. Static: the address below is used.', options: ['DHCP', 'Static'], default: 0, role: 'operator', reboot: true }),
          staticIpv4({ key: 'LanIpAddress', label: 'Static IP address', description: 'IPv4 address of the controller when the assignment is static.', default: '192.168.1.50' }),
          {
            ...staticIpv4({ key: 'LanNetmask', label: 'Netmask', description: 'IPv4 netmask of the static address.', default: '255.255.255.0' }),
            pattern: new RegExp(`^(${NETMASKS.map((m) => m.replaceAll('.', '\\.')).join('|')})$`),
            patternHint: 'a netmask from /8 to /30 such as 255.255.255.0',
          } as FieldDef,
          staticIpv4({ key: 'LanGateway', label: 'Gateway', description: 'IPv4 address of the default gateway for the static address.', default: '192.168.1.1' }),
        ],
      },
      {
        key: 'gsm',
        label: 'GSM',
        fields: [
          onOff({ key: 'GsmEnabled', label: 'Mobile network', description: 'Connect the backend over the built-in modem instead of the LAN.', default: 0, role: 'operator', reboot: true }),
          {
            key: 'GsmApn',
            label: 'APN',
            description: 'Access point name of the mobile network provider.',
            type: 'string',
            length: [0, 64],
            // APN labels (3GPP TS 23.003): letters, digits and hyphens, separated by dots.
            pattern: /^$|^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/,
            patternHint: 'empty or an APN of letters, digits, "-" and dots such as internet.provider.com',
            default: '',
            mode: 'rw',
            role: 'operator',
            parents: [{ name: 'GsmEnabled', value: [1] }],
            reboot: true,
          },
        ],
      },
    ],
  },
  {
    key: 'backend',
    sub_groups: [
      {
        key: 'connection',
        label: 'Connection',
        fields: [
          onOff({ key: 'OcppEnabled', label: 'OCPP backend', description: 'Connect to an OCPP 1.6 central system. Off: the controller works stand-alone.', default: 0, role: 'installer', reboot: true }),
          ocppField({
            key: 'OcppUrl',
            label: 'Central system URL',
            description: 'WebSocket URL of the OCPP central system (ws:// or wss://); the charge box identity is appended as the last path segment.',
            type: 'string',
            length: [0, 255],
            pattern: /^$|^wss?:\/\/[\x21-\x7e]+$/,
            patternHint: 'empty or a ws:// or wss:// URL',
            default: '',
            reboot: true,
          }),
          ocppField({
            key: 'OcppPassword',
            label: 'Password (security profile 1)',
            description: 'HTTP basic authentication password at the central system (OCPP AuthorizationKey), 16 to 40 characters; empty: none. Write-only: it is never shown.',
            type: 'string',
            length: [0, 40],
            pattern: /^$|^[\x21-\x7e]{16,40}$/,
            patternHint: 'empty or 16 to 40 printable ASCII characters without spaces',
            default: '',
            writeOnly: true,
            reboot: true,
          }),
          ocppField({
            key: 'OcppCaFile',
            label: 'CA certificate file (security profile 2)',
            description: 'Path of a PEM file with the certificate authority that signed the central system\'s certificate (wss:// only); empty: the system\'s trusted authorities.',
            type: 'string',
            length: [0, 255],
            pattern: PRINTABLE,
            patternHint: 'printable ASCII characters',
            default: '',
            reboot: true,
          }),
        ],
      },
      {
        key: 'ocpp',
        label: 'OCPP',
        fields: [
          ocppField({
            key: 'OcppChargeBoxId',
            label: 'Charge box identity',
            description: 'Identity of this charge point at the central system.',
            type: 'string',
            length: [1, 48],
            pattern: /^[\w.-]+$/,
            patternHint: 'letters, digits, ".", "_" and "-"',
            default: 'CC-0001',
            reboot: true,
          }),
          ocppField({
            key: 'OcppHeartbeatInterval',
            label: 'Heartbeat interval',
            description: 'Interval of OCPP heartbeats when the central system does not set one (OCPP HeartbeatInterval).',
            type: 'int',
            range: [30, 86_400],
            default: 300,
            unit: 's',
          }),
          ocppField({
            key: 'OcppWebSocketPingInterval',
            label: 'WebSocket ping interval',
            description: 'A WebSocket ping is sent this often; a connection that does not answer before the next ping is closed and opened again (OCPP WebSocketPingInterval). 0: no pings.',
            type: 'int',
            range: [0, 3600],
            default: 60,
            unit: 's',
          }),
          ocppField({
            key: 'OcppMeterValueSampleInterval',
            label: 'Meter value interval',
            description: 'During a transaction, meter values are sent this often (OCPP MeterValueSampleInterval). 0: none.',
            type: 'int',
            range: [0, 3600],
            default: 60,
            unit: 's',
          }),
          ocppField({
            key: 'OcppClockAlignedDataInterval',
            label: 'Clock-aligned meter value interval',
            description: 'Meter values are also sent at every multiple of this interval after midnight UTC (OCPP ClockAlignedDataInterval). 0: none.',
            type: 'int',
            range: [0, 86_400],
            default: 0,
            unit: 's',
          }),
          ocppField({
            key: 'OcppTransactionMessageAttempts',
            label: 'Transaction message attempts',
            description: 'How often a transaction message the central system refuses is sent before it is given up (OCPP TransactionMessageAttempts).',
            type: 'int',
            range: [1, 10],
            default: 3,
          }),
          ocppField({
            key: 'OcppTransactionMessageRetryInterval',
            label: 'Transaction message retry interval',
            description: 'Wait before sending a refused transaction message again, multiplied by the attempts made (OCPP TransactionMessageRetryInterval).',
            type: 'int',
            range: [1, 3600],
            default: 60,
            unit: 's',
          }),
        ],
      },
      {
        key: 'ocppauth',
        label: 'OCPP Authorization',
        fields: [
          onOff({ key: 'OCPPWLEnabled', label: 'OCPP whitelist', description: 'Accept tags from the whitelist the central system sends (OCPP local authorization list, LocalAuthListEnabled).', default: 0, role: 'operator' }),
          ocppSwitch({ key: 'OcppAuthorizationCacheEnabled', label: 'Authorization cache', description: 'Remember the central system\'s answers to Authorize for use while it cannot be reached (OCPP AuthorizationCacheEnabled).', default: 1 }),
          ocppSwitch({ key: 'OcppLocalPreAuthorize', label: 'Local pre-authorization', description: 'While connected, a tag valid in the OCPP whitelist or the cache starts charging without asking the central system first (OCPP LocalPreAuthorize).', default: 0 }),
          ocppSwitch({ key: 'OcppLocalAuthorizeOffline', label: 'Offline authorization', description: 'While the central system cannot be reached, tags valid in the OCPP whitelist or the cache may charge (OCPP LocalAuthorizeOffline).', default: 1 }),
          ocppSwitch({ key: 'OcppAllowOfflineTxForUnknownId', label: 'Offline charging for unknown tags', description: 'While the central system cannot be reached, any tag may charge (OCPP AllowOfflineTxForUnknownId).', default: 0 }),
          ocppSwitch({ key: 'OcppStopTransactionOnInvalidId', label: 'Stop on invalid tag', description: 'Stop a transaction when the central system answers its start with a tag that is not valid (OCPP StopTransactionOnInvalidId).', default: 1 }),
        ],
      },
      {
        // docs/mqtt.md: topics, payloads, commands and Home Assistant discovery. Every change takes effect at once.
        key: 'mqtt',
        label: 'MQTT',
        fields: [
          onOff({ key: 'MqttEnabled', label: 'MQTT', description: 'Publish the state to an MQTT broker and take commands from it (Home Assistant, evcc, Node-RED).', default: 0, role: 'operator' }),
          {
            key: 'MqttUrl',
            label: 'Broker URL',
            description: 'mqtt://host:port, or mqtts://host:port for TLS (port 1883 and 8883 by default). User and password are set below, not in the URL.',
            type: 'string',
            length: [0, 255],
            pattern: BROKER_URL,
            patternHint: 'empty or an mqtt:// or mqtts:// URL with a host and an optional port, without user, password or path',
            default: '',
            mode: 'rw',
            role: 'operator',
            parents: MQTT_ON,
          },
          { key: 'MqttUsername', label: 'User name', description: 'User name at the broker; empty: none.', type: 'string', length: [0, 255], default: '', mode: 'rw', role: 'operator', parents: MQTT_ON },
          {
            key: 'MqttPassword',
            label: 'Password',
            description: 'Password at the broker. Write-only: it is never shown, logged or published.',
            type: 'string',
            length: [0, 255],
            default: '',
            mode: 'rw',
            role: 'operator',
            parents: MQTT_ON,
            writeOnly: true,
          },
          {
            key: 'MqttClientId',
            label: 'Client ID',
            description: 'Client identifier at the broker; empty: charge-controller- followed by the serial number.',
            type: 'string',
            length: [0, 64],
            pattern: /^[\x21-\x7e]*$/,
            patternHint: 'printable ASCII characters without spaces',
            default: '',
            mode: 'rw',
            role: 'operator',
            parents: MQTT_ON,
          },
          {
            key: 'MqttBaseTopic',
            label: 'Base topic',
            description: 'Every topic of this charger starts with it; give each charger on a broker its own.',
            type: 'string',
            length: [1, 128],
            pattern: TOPIC,
            patternHint: 'topic levels separated by "/", without "+", "#", spaces, empty levels or a leading "$"',
            default: 'charge-controller',
            mode: 'rw',
            role: 'operator',
            parents: MQTT_ON,
          },
          {
            key: 'MqttQos',
            label: 'Quality of service',
            description: 'MQTT QoS of the published state, the discovery messages and the subscriptions.',
            type: 'enum',
            options: [
              { value: 0, label: 'At most once (0)' },
              { value: 1, label: 'At least once (1)' },
              { value: 2, label: 'Exactly once (2)' },
            ],
            default: 1,
            mode: 'rw',
            role: 'operator',
            parents: MQTT_ON,
          },
          onOff({ key: 'MqttRetain', label: 'Retain state', description: 'On: the broker keeps the last state for new subscribers. The status and discovery messages are always retained.', default: 1, role: 'operator', parents: MQTT_ON }),
          {
            key: 'MqttInterval',
            label: 'Meter publish interval',
            description: 'Meter values (power, energy, currents, temperature, duration) are published at most this often; states at once.',
            type: 'int',
            range: [1, 3600],
            default: 10,
            unit: 's',
            mode: 'rw',
            role: 'operator',
            parents: MQTT_ON,
          },
          onOff({ key: 'MqttPublishTagIds', label: 'Publish tag ids', description: 'On: the tag id and user id of the transaction are published. Off (default): never, as they identify people.', default: 0, role: 'operator', parents: MQTT_ON }),
          onOff({ key: 'MqttControl', label: 'Control over MQTT', description: 'On: commands on <base topic>/set/... are carried out (charging enabled, maximum current, load limit). Off: they are refused.', default: 0, role: 'operator', parents: MQTT_ON }),
          onOff({
            key: 'MqttLoadManagement',
            label: 'Load limit over MQTT',
            description: 'On: the current limit from <base topic>/set/LoadLimit applies; without a new one within the refresh time (and after a start, until the first), the fallback current applies.',
            default: 0,
            role: 'operator',
            parents: MQTT_CONTROL,
          }),
          {
            key: 'MqttLoadLimitTimeout',
            label: 'Load limit refresh time',
            description: 'A load limit not renewed within this time is stale: the fallback current applies.',
            type: 'int',
            range: [5, 3600],
            default: 60,
            unit: 's',
            mode: 'rw',
            role: 'operator',
            parents: MQTT_LOAD,
          },
          {
            key: 'MqttLoadLimitFallback',
            label: 'Fallback current',
            description: 'The current limit while no fresh load limit is known; below 6 A charging pauses.',
            type: 'int',
            range: [0, 32],
            default: 6,
            unit: 'A',
            mode: 'rw',
            role: 'operator',
            parents: MQTT_LOAD,
          },
          onOff({ key: 'MqttDiscovery', label: 'Home Assistant discovery', description: 'On: the charger announces its entities to Home Assistant (and again when Home Assistant starts). Off: the announcement is withdrawn.', default: 1, role: 'operator', parents: MQTT_ON }),
          {
            key: 'MqttDiscoveryPrefix',
            label: 'Discovery prefix',
            description: 'Topic prefix of Home Assistant discovery.',
            type: 'string',
            length: [1, 64],
            pattern: TOPIC,
            patternHint: 'topic levels separated by "/", without "+", "#", spaces, empty levels or a leading "$"',
            default: 'homeassistant',
            mode: 'rw',
            role: 'operator',
            parents: MQTT_DISCOVERY,
          },
        ],
      },
    ],
  },
  {
    key: 'authorization',
    sub_groups: [
      {
        key: 'rfid',
        label: 'RFID Settings',
        fields: [
          choice({ key: 'RFIDMode', label: 'RFID Mode', description: 'RFID only: the reader reads RFID cards. RFID/NFC hybrid: it also answers phones over NFC (the app).', options: ['RFID only', 'RFID/NFC hybrid'], default: 0, role: 'operator', app: true }),
          {
            key: 'AuthTimeout',
            label: 'Authorization timeout',
            description: 'How long a tag presented before plugging in stays valid.',
            type: 'int',
            range: [5, 600],
            default: 30,
            unit: 's',
            mode: 'rw',
            role: 'operator',
            app: true,
          },
        ],
      },
      {
        key: 'freecharging',
        label: 'Free Charging',
        fields: [
          onOff({ key: 'FreeCharging', label: 'Free charging', description: 'On: every vehicle charges when plugged in, without a tag.', default: 0, role: 'user', writeRole: 'operator', app: true }),
        ],
      },
    ],
  },
  {
    key: 'whitelists',
    sub_groups: [
      {
        key: 'local',
        label: 'Local Whitelist',
        fields: [
          onOff({ key: 'FLLEnabled', label: 'Local whitelist', description: 'On: tags in the local whitelist may charge. Off: the local whitelist is not used.', default: 1, role: 'operator', app: true }),
        ],
      },
    ],
  },
  {
    key: 'loadmanagement',
    sub_groups: [
      {
        key: 'currentlimits',
        label: 'Current Limits',
        fields: [
          {
            key: 'MaxCurrent',
            label: 'Maximum current',
            description: 'The highest current per phase announced to the vehicle (PWM duty).',
            type: 'int',
            range: [6, 32],
            default: 16,
            unit: 'A',
            mode: 'rw',
            role: 'user',
            writeRole: 'operator',
            app: true,
          },
          {
            key: 'PhaseCurrentLimits',
            label: 'Supply limits per phase',
            description: 'Limits of the supply on L1, L2, L3; the announced current never exceeds the lowest.',
            type: 'triple',
            range: [6, 80],
            default: [32, 32, 32],
            unit: 'A',
            mode: 'rw',
            role: 'installer',
          },
        ],
      },
    ],
  },
  {
    key: 'installation',
    sub_groups: [
      {
        key: 'connector',
        label: 'Connector',
        fields: [
          onOff({ key: 'ChargingEnabled', label: 'Charging enabled', description: 'Off: the charge point is unavailable; a running charge is stopped.', default: 1, role: 'operator', app: true }),
          {
            key: 'Phases',
            label: 'Phases',
            description: 'Phases wired to the connector and the meter.',
            type: 'enum',
            options: [
              { value: 1, label: '1 phase' },
              { value: 3, label: '3 phases' },
            ],
            default: 3,
            mode: 'rw',
            role: 'installer',
            reboot: true,
          },
          onOff({ key: 'Ventilation', label: 'Ventilation', description: 'On: the installation ventilates, so vehicles requesting ventilation (CP state D) may charge.', default: 0, role: 'installer' }),
        ],
      },
    ],
  },
  {
    key: 'system',
    sub_groups: [
      {
        key: 'language',
        label: 'Language',
        fields: [
          {
            key: 'Language',
            label: 'Language',
            description: 'Language of the web interface and the app.',
            type: 'enum',
            options: LANGUAGES.map((l) => ({ value: l.value, label: l.label })),
            default: 0,
            mode: 'rw',
            role: 'user',
            app: true,
          },
        ],
      },
      {
        key: 'info',
        label: 'Information',
        fields: [
          {
            key: 'FirmwareVersion_custom',
            label: 'Firmware version',
            description: 'Version of the controller firmware.',
            type: 'string',
            length: [0, 64],
            default: '',
            mode: 'ro',
            role: 'user',
            app: true,
          },
          {
            key: 'SerialNumber_custom',
            label: 'Serial number',
            description: 'Serial number of the controller (its machine id).',
            type: 'string',
            length: [0, 64],
            default: '',
            mode: 'ro',
            role: 'user',
            app: true,
          },
          {
            key: 'ControllerTime_custom',
            label: 'Controller time',
            description: 'Date and time of the controller in UTC.',
            type: 'string',
            length: [0, 64],
            default: '',
            mode: 'ro',
            role: 'user',
            app: true,
          },
        ],
      },
      {
        key: 'logging',
        label: 'Logging',
        fields: [
          choice({ key: 'LogLevel', label: 'Log level', description: 'Detail of the controller log. Takes effect at once, unless the environment variable LOG_LEVEL is set: it wins while set (the log says so).', options: ['error', 'warn', 'info', 'debug'], default: 2, role: 'installer' }),
        ],
      },
    ],
  },
  {
    key: 'devel',
    sub_groups: [
      {
        key: 'diagnostics',
        label: 'Diagnostics',
        fields: [
          {
            key: 'PilotDebounce',
            label: 'Control pilot debounce',
            description: 'Time a control pilot level must be stable before the charge cycle acts on it.',
            type: 'int',
            range: [10, 100],
            default: 40,
            unit: 'ms',
            mode: 'rw',
            role: 'manufacturer',
            reboot: true,
          },
        ],
      },
    ],
  },
];

/** Every field by key. */
export const FIELDS: ReadonlyMap<string, FieldDef & { group: GroupKey; subGroup: string }> = new Map(
  CATALOGUE.flatMap((g) => g.sub_groups.flatMap((sg) => sg.fields.map((f) => [f.key, { ...f, group: g.key, subGroup: sg.key }] as const))),
);

export type SettingValue = string | number | [number, number, number];
