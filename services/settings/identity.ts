import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { declare } from './types.js';

/** The controller's identity and time (System › Information): read-only fields computed when asked. */
export const IDENTITY_SETTINGS = declare({
  FirmwareVersion_custom: {
    label: { gb: 'Firmware version', de: 'Firmware-Version', nl: 'Firmwareversie', fr: 'Version du micrologiciel' },
    description: {
      gb: 'Version of the controller firmware.',
      de: 'Version der Controller-Firmware.',
      nl: 'Versie van de controllerfirmware.',
      fr: 'Version du micrologiciel du contrôleur.',
    },
    type: 'string',
    length: [0, 64],
    default: '',
    mode: 'ro',
    role: 'user',
    app: true,
  },
  SerialNumber_custom: {
    label: { gb: 'Serial number', de: 'Seriennummer', nl: 'Serienummer', fr: 'Numéro de série' },
    description: {
      gb: 'Serial number of the controller (its machine id).',
      de: 'Seriennummer des Controllers (seine Maschinen-ID).',
      nl: 'Serienummer van de controller (zijn machine-id).',
      fr: 'Numéro de série du contrôleur (son identifiant machine).',
    },
    type: 'string',
    length: [0, 64],
    default: '',
    mode: 'ro',
    role: 'user',
    app: true,
  },
  ControllerTime_custom: {
    label: { gb: 'Controller time', de: 'Controller-Zeit', nl: 'Tijd van de controller', fr: 'Heure du contrôleur' },
    description: {
      gb: 'Date and time of the controller in UTC.',
      de: 'Datum und Uhrzeit des Controllers in UTC.',
      nl: 'Datum en tijd van de controller in UTC.',
      fr: 'Date et heure du contrôleur en UTC.',
    },
    type: 'string',
    length: [0, 64],
    default: '',
    mode: 'ro',
    role: 'user',
    app: true,
  },
});

/** Values of the read-only fields computed at the time of asking. */
export interface ComputedValues {
  FirmwareVersion_custom: string;
  SerialNumber_custom: string;
  ControllerTime_custom: string;
}

/** The firmware's version: package.json's. */
export const FIRMWARE_VERSION = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
})();

const SERIAL_NUMBER = (() => {
  try {
    return readFileSync('/etc/machine-id', 'utf8').trim().slice(0, 12).toUpperCase();
  } catch {
    return hostname();
  }
})();

/** The read-only fields' values now. */
export function computedValues(now: () => number): ComputedValues {
  return { FirmwareVersion_custom: FIRMWARE_VERSION, SerialNumber_custom: SERIAL_NUMBER, ControllerTime_custom: new Date(now()).toISOString() };
}
