import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TemperatureSensor } from '../types.js';

/** Where the Linux w1-therm driver lists 1-wire devices (DS18B20 devices are named `28-<serial>`). */
export const W1_DEVICES_DIR = '/sys/bus/w1/devices';

export interface Ds18b20Options {
  /** The sensor's `temperature` file (millidegrees Celsius); when unset, the first `28-*` device is used. */
  path?: string | undefined;
  /** Where to look for `28-*` devices when `path` is unset (default /sys/bus/w1/devices). */
  devicesDir?: string;
}

/** The `temperature` file of the first DS18B20 (`28-*`, sorted by name) in `devicesDir`, or undefined. */
export async function findDs18b20(devicesDir = W1_DEVICES_DIR): Promise<string | undefined> {
  let names: string[];
  try {
    names = await readdir(devicesDir);
  } catch {
    return undefined;
  }
  const first = names.filter((name) => name.startsWith('28-')).sort()[0];
  return first === undefined ? undefined : join(devicesDir, first, 'temperature');
}

/**
 * A DS18B20 1-wire sensor read through the kernel's w1-therm sysfs file (`dtoverlay=w1-gpio`). Each read triggers a
 * conversion (up to 750 ms at 12 bits). Rejects when the file cannot be read (sensor gone, CRC error) or holds no
 * number. Without a configured path the first `28-*` device is searched at every read until one is found.
 */
export function createDs18b20(options: Ds18b20Options = {}): TemperatureSensor {
  let path = options.path;
  return {
    async read() {
      path ??= await findDs18b20(options.devicesDir);
      if (path === undefined) throw new Error(`temperature sensor: no DS18B20 (28-*) in ${options.devicesDir ?? W1_DEVICES_DIR}`);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (err) {
        throw new Error(`temperature sensor ${path} does not answer: ${(err as Error).message}`, { cause: err });
      }
      if (!/^\s*-?\d+\s*$/.test(text)) throw new Error(`temperature sensor ${path}: unexpected content ${JSON.stringify(text.slice(0, 40))}`);
      return Number(text) / 1000;
    },
  };
}
