import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createDs18b20, findDs18b20 } from '../../drivers/temperature/ds18b20.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'w1-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function sensor(name: string, content: string) {
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(join(dir, name, 'temperature'), content);
  return join(dir, name, 'temperature');
}

describe('DS18B20 over sysfs', () => {
  test('reads millidegrees from the configured file', async () => {
    const path = await sensor('28-000005e2fdc3', '23125\n');
    const t = createDs18b20({ path });
    expect(await t.read()).toBe(23.125);
    await writeFile(path, '-1250\n');
    expect(await t.read()).toBe(-1.25);
  });

  test('auto-detects the first 28-* device', async () => {
    await mkdir(join(dir, 'w1_bus_master1'));
    await sensor('28-00000bbbbbbb', '30000\n');
    await sensor('28-00000aaaaaaa', '21000\n');
    await sensor('10-00000ccccccc', '99000\n'); // a DS18S20 family device is not taken
    expect(await findDs18b20(dir)).toBe(join(dir, '28-00000aaaaaaa', 'temperature'));
    expect(await createDs18b20({ devicesDir: dir }).read()).toBe(21);
  });

  test('no sensor yet: reads reject until one appears', async () => {
    const t = createDs18b20({ devicesDir: dir });
    await expect(t.read()).rejects.toThrow(/no DS18B20/);
    await sensor('28-000005e2fdc3', '45500\n');
    expect(await t.read()).toBe(45.5);
    expect(await findDs18b20(join(dir, 'missing'))).toBeUndefined();
  });

  test('a vanished sensor or garbage rejects', async () => {
    const path = await sensor('28-000005e2fdc3', '23125\n');
    const t = createDs18b20({ path });
    await writeFile(path, 'error\n');
    await expect(t.read()).rejects.toThrow(/unexpected content/);
    await writeFile(path, '');
    await expect(t.read()).rejects.toThrow(/unexpected content/);
    await rm(join(dir, '28-000005e2fdc3'), { recursive: true });
    await expect(t.read()).rejects.toThrow(/does not answer/);
  });
});
