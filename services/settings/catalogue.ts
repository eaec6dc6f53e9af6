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
          {
            key: 'OcppUrl',
            label: 'Central system URL',
            description: 'WebSocket URL of the OCPP central system (ws:// or wss://).',
            type: 'string',
            length: [0, 255],
            pattern: /^$|^wss?:\/\/[\x21-\x7e]+$/,
            patternHint: 'empty or a ws:// or wss:// URL',
            default: '',
            mode: 'rw',
            role: 'installer',
            parents: [{ name: 'OcppEnabled', value: [1] }],
            reboot: true,
          },
        ],
      },
      {
        key: 'ocpp',
        label: 'OCPP',
        fields: [
          {
            key: 'OcppChargeBoxId',
            label: 'Charge box identity',
            description: 'Identity of this charge point at the central system.',
            type: 'string',
            length: [1, 48],
            pattern: /^[\w.-]+$/,
            patternHint: 'letters, digits, ".", "_" and "-"',
            default: 'CC-0001',
            mode: 'rw',
            role: 'installer',
            parents: [{ name: 'OcppEnabled', value: [1] }],
            reboot: true,
          },
          {
            key: 'OcppHeartbeatInterval',
            label: 'Heartbeat interval',
            description: 'Interval of OCPP heartbeats when the central system does not set one.',
            type: 'int',
            range: [30, 86_400],
            default: 300,
            unit: 's',
            mode: 'rw',
            role: 'installer',
            parents: [{ name: 'OcppEnabled', value: [1] }],
          },
          onOff({ key: 'OCPPWLEnabled', label: 'OCPP whitelist', description: 'Accept tags from the whitelist the central system sends (OCPP local authorization list).', default: 0, role: 'operator' }),
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
