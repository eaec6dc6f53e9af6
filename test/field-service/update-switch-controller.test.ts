import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, test } from 'vitest';
import type { Csms } from '../../bin/dev/central-system.js';
import { createUpdateSwitch } from '../../bin/update-switch.js';
import { readSlotState } from '../../services/field-service/slots.js';
import { newSigningKey } from '../../services/field-service/update-file.js';
import { createUpdateInstaller, switchModeOf } from '../../services/field-service/updates.js';
import { charging, codes, KNOWN, OTHER, systemState, useChargers, type Charger } from '../charging/scenario.js';
import { until, useOcppChargers } from '../ocpp/support.js';
import { ADD_METER, fakeUpdate, INITIAL, ROOT, writeFakeTree } from './fake-versions.js';

/**
 * How a running charge meets an update, on the controller with simulated hardware (docs/field-service.md#a-charge-running):
 * the real installer installs a (fake) version while a charge runs, and the update switch as bin/controller.ts wires
 * it decides when the controller ends. Its checks (every second in the controller) are ticked by hand; its
 * shutdown is recorded, so the test can see what the controller does after asking to end.
 */

const { start } = useChargers();
const { charger } = useOcppChargers();
const key = newSigningKey();
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** An install root running 0.1.0, version 0.2.0's update file, and the installer and switch of controller `c`. */
async function updatesOf(c: Charger) {
  const root = await mkdtemp(join(tmpdir(), 'cc-switch-'));
  dirs.push(root);
  await writeFakeTree(root, '0.1.0', [INITIAL], 'good');
  await writeFile(join(root, 'keys'), `${Buffer.from(key.publicKey).toString('hex')}\n`);
  await writeFakeTree(join(root, 'next'), '0.2.0', [INITIAL, ADD_METER], 'good');
  const file = await fakeUpdate(join(root, 'next'), key.secretKey);
  let check: (() => void) | undefined;
  const shutdowns: string[] = [];
  const updateSwitch = createUpdateSwitch({
    charging: () => c.h.controller.charging,
    shutdown: (reason) => shutdowns.push(reason),
    logger: { info: () => {} },
    timers: { setInterval: (fn) => ((check = fn), 1), clearInterval: () => (check = undefined) },
  });
  const installer = createUpdateInstaller({
    root,
    trustedKeysFile: join(root, 'keys'),
    switchMode: () => switchModeOf(c.h.controller.settings),
    switchTo: (mode) => updateSwitch.switchTo(mode),
  });
  return { root, file, installer, shutdowns, tick: () => check?.() };
}

const statuses = (csms: Csms) =>
  csms
    .calls('StatusNotification')
    .filter((p) => p.connectorId === 1)
    .map((p) => p.status as string);

describe('finish-charge', () => {
  test('installed while a charge runs: it goes on; once it ends no new charge starts (tag, plug-in, remote start) and the controller ends', async () => {
    const c = await charger();
    await c.online();
    const res = await c.api('PATCH', '/v1/settings', { params: [{ key: 'UpdateSwitchMode', value: 1 }] });
    expect(res.status).toBe(200);
    const u = await updatesOf(c);
    await charging(c);
    await until(c, () => statuses(c.csms).at(-1) === 'Charging', 'Charging');

    await u.installer.install(u.file);
    expect(readSlotState(u.root).trial).toMatchObject({ version: '0.2.0', switchMode: 'finish-charge' });
    for (let i = 0; i < 10; i++) {
      await c.step(1000);
      u.tick();
    }
    // The running charge goes on, and the messages say why no new one will start.
    expect(await systemState(c)).toBe('charging');
    expect((await c.view()).plant.contactorClosed).toBe(true);
    expect(await codes(c)).toContain('UPDATE_WAITING');
    expect(u.shutdowns).toEqual([]);

    // The session's tag ends it; the vehicle stays plugged in (finished), where a known tag would start a new one.
    await c.tag(KNOWN);
    await c.act('pause');
    await until(c, () => statuses(c.csms).at(-1) === 'Unavailable', 'Unavailable to the central system');
    expect(await systemState(c)).toBe('unavailable');
    await c.tag(OTHER);
    await c.act('charge');
    expect(await systemState(c)).toBe('unavailable');
    expect((await c.state()).transaction).toBeUndefined();
    expect((await c.view()).plant.contactorClosed).toBe(false);
    expect(await c.csms.call('RemoteStartTransaction', { idTag: KNOWN })).toEqual({ status: 'Rejected' });
    expect(() => c.h.controller.chargeControl.start()).toThrow(/No charge can start: An update is installed/);
    expect(c.csms.calls('StartTransaction')).toHaveLength(1);
    // The charge point is unavailable without the stored setting changing: the update starts with charging enabled.
    expect(c.h.controller.settings.get('ChargingEnabled')).toBe(1);

    u.tick();
    expect(u.shutdowns).toEqual(['update installed: switching to it (no charge runs; mode finish-charge)']);
  });
});

describe('wait-for-idle (the default)', () => {
  test('installed while a charge runs: a new charge may start after it; the controller ends at the first check without one', async () => {
    const c = await start();
    const u = await updatesOf(c);
    await charging(c);
    await u.installer.install(u.file);
    expect(readSlotState(u.root).trial).toMatchObject({ switchMode: 'wait-for-idle' });
    u.tick();
    expect(await codes(c)).not.toContain('UPDATE_WAITING');

    await c.tag(KNOWN);
    await c.act('pause');
    expect((await c.state()).transaction).toBeUndefined();
    await c.tag(OTHER); // before the next check: a new transaction starts
    await c.act('charge');
    expect(await systemState(c)).toBe('charging');
    u.tick();
    expect(u.shutdowns).toEqual([]);

    await c.act('unplug');
    u.tick();
    expect(u.shutdowns).toEqual(['update installed: switching to it (no charge runs; mode wait-for-idle)']);
  });
});

describe("npm run update's choice reaches the running controller", () => {
  test('--finish-charge is kept in the trial; the controller told by the launcher switches in that mode whatever its setting says', async () => {
    const c = await start();
    const u = await updatesOf(c);
    await writeFile(join(u.root, 'update.ccupdate'), u.file);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'dist', 'bin', 'update.js'), join(u.root, 'update.ccupdate'), '--finish-charge'],
      {
        env: { PATH: process.env.PATH, UPDATE_ROOT: u.root, UPDATE_TRUSTED_KEYS: join(u.root, 'keys') },
      },
    );
    expect(stdout).toMatch(/installed: version 0.2.0/);
    expect(readSlotState(u.root).trial).toMatchObject({ switchMode: 'finish-charge' });
    await charging(c);
    expect(switchModeOf(c.h.controller.settings)).toBe('wait-for-idle');
    u.installer.switchToInstalled(); // the launcher's message after the tool's SIGHUP (bin/controller.ts)
    await c.step(0);
    expect(await codes(c)).toContain('UPDATE_WAITING');
    await c.act('unplug');
    expect(await systemState(c)).toBe('unavailable');
    u.tick();
    expect(u.shutdowns).toEqual(['update installed: switching to it (no charge runs; mode finish-charge)']);
  });
});
