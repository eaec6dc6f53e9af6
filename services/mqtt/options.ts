import type { SettingKey, Settings } from '../settings/index.js';

/** The MQTT settings (Backend › MQTT) as the MQTT service uses them. */
export interface MqttOptions {
  enabled: boolean;
  /** `mqtt://host:port` or `mqtts://host:port`; empty: none. */
  url: string;
  username: string;
  /** Write-only: used for the connection only, never shown, logged or published. */
  password: string;
  clientId: string;
  baseTopic: string;
  qos: 0 | 1 | 2;
  retain: boolean;
  intervalMs: number;
  publishTagIds: boolean;
  control: boolean;
  loadManagement: boolean;
  loadLimitTimeoutMs: number;
  loadLimitFallbackA: number;
  discovery: boolean;
  discoveryPrefix: string;
  /** The device's identity in Home Assistant (from the serial number). */
  deviceId: string;
  serialNumber: string;
  firmwareVersion: string;
  /** 1 or 3 (the Phases setting): how many phase currents are announced. */
  phases: 1 | 3;
}

/** The serial number as an identifier (letters, digits, `_`). */
const identifier = (text: string) => text.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'unknown';

/** The MQTT options from the settings. */
export function mqttOptionsOf(settings: Pick<Settings, 'get'>): MqttOptions {
  const on = (key: SettingKey) => settings.get(key) === 1;
  const serialNumber = settings.get('SerialNumber_custom');
  return {
    enabled: on('MqttEnabled'),
    url: settings.get('MqttUrl'),
    username: settings.get('MqttUsername'),
    password: settings.get('MqttPassword'),
    clientId: settings.get('MqttClientId') || `charge-controller-${identifier(serialNumber)}`,
    baseTopic: settings.get('MqttBaseTopic'),
    qos: settings.get('MqttQos'),
    retain: on('MqttRetain'),
    intervalMs: settings.get('MqttInterval') * 1000,
    publishTagIds: on('MqttPublishTagIds'),
    control: on('MqttControl'),
    loadManagement: on('MqttLoadManagement'),
    loadLimitTimeoutMs: settings.get('MqttLoadLimitTimeout') * 1000,
    loadLimitFallbackA: settings.get('MqttLoadLimitFallback'),
    discovery: on('MqttDiscovery'),
    discoveryPrefix: settings.get('MqttDiscoveryPrefix'),
    deviceId: `charge_controller_${identifier(serialNumber).toLowerCase()}`,
    serialNumber,
    firmwareVersion: settings.get('FirmwareVersion_custom'),
    phases: settings.get('Phases') === 1 ? 1 : 3,
  };
}

/** Whether a change from `a` to `b` needs a new connection (what the connection is opened with). */
export const connectionChanged = (a: MqttOptions, b: MqttOptions): boolean =>
  (['enabled', 'url', 'username', 'password', 'clientId', 'baseTopic', 'qos', 'discoveryPrefix'] as const).some((k) => a[k] !== b[k]);

/** Whether a change from `a` to `b` changes what Home Assistant discovery announces. */
export const entitiesChanged = (a: MqttOptions, b: MqttOptions): boolean =>
  (['discovery', 'control', 'loadManagement', 'publishTagIds', 'phases'] as const).some((k) => a[k] !== b[k]);

/** Load management over MQTT applies: MQTT on, control allowed, load management on. */
export const loadManagementOn = (o: MqttOptions): boolean => o.enabled && o.control && o.loadManagement;
