import { eq } from 'drizzle-orm';
import { expect, test } from 'vitest';
import { energyToday } from '../../db/schema.js';
import { TODAY_SAVE_INTERVAL_MS, todaySaveDue } from '../../services/energy/today.js';
import { charging, useChargers, type Charger } from '../charging/scenario.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';

/**
 * Today's energy by origin survives a restart (services/energy/today-store.ts): a controller on simulated hardware
 * charges (Fast mode, no grid input: all of it from the grid), stops and starts again on the same data directory.
 */

const chargers = useChargers();
const DAY_MS = 24 * 3_600_000;

const start = (at: number, dataDir?: string): Promise<Charger> =>
  chargers.start({ ...(dataDir ? { dataDir, whitelist: false } : {}), harness: { timeZone: 'UTC', clock: new ManualClock(at) } });
const today = async (c: Charger) => (await c.state()).energy.today as { solarWh: number; gridWh: number };
const row = async (c: Charger) => (await c.h.controller.database.db.select().from(energyToday).where(eq(energyToday.id, 1)))[0];
/** Stops `c` and keeps its data directory for the next start. */
async function stop(c: Charger): Promise<string> {
  chargers.stopped(c);
  await c.h.stop({ keepData: true });
  return c.h.dataDir;
}

test('writes only energy not yet written: at a transaction end, a day change, or after the interval', () => {
  const day = '2026-06-01';
  const t = { day, solarWh: 10, gridWh: 20, at: 0 };
  expect(todaySaveDue({ ...t, solarWh: 0, gridWh: 0 }, null, true, 0)).toBe(false); // nothing charged: no write
  expect(todaySaveDue(t, null, false, 0)).toBe(true); // the first energy of the day
  const saved = { day, solarWh: 10, gridWh: 20, at: 1_000 };
  expect(todaySaveDue(t, saved, true, 2_000)).toBe(false); // written already (idle)
  const more = { ...t, gridWh: 25 };
  expect(todaySaveDue(more, saved, false, 1_000 + TODAY_SAVE_INTERVAL_MS - 1)).toBe(false);
  expect(todaySaveDue(more, saved, false, 1_000 + TODAY_SAVE_INTERVAL_MS)).toBe(true);
  expect(todaySaveDue(more, saved, true, 2_000)).toBe(true);
  // The next day: its first energy is written at once; a new day without energy is not (it restores as zero).
  expect(todaySaveDue({ ...t, day: '2026-06-02', gridWh: 1 }, saved, false, 2_000)).toBe(true);
  expect(todaySaveDue({ ...t, day: '2026-06-02', solarWh: 0, gridWh: 0 }, saved, false, 2_000)).toBe(false);
});

test("a restart on the same day keeps the day's figures; idle adds no write; a restart the next day starts at zero", async () => {
  const first = await start(TEST_EPOCH);
  expect(await row(first)).toBeUndefined(); // idle since the start: nothing written
  await charging(first);
  await first.step(1_000);
  // Written with the first energy of the day, then not again within the interval while charging.
  const early = await row(first);
  expect(early).toMatchObject({ day: '2026-06-01' });
  for (let i = 0; i < 4; i++) await first.step(30_000);
  expect((await row(first))!.savedAt).toBe(early!.savedAt);
  await first.step(TODAY_SAVE_INTERVAL_MS - 2 * 60_000);
  const periodic = await row(first);
  expect(periodic!.savedAt).toBeGreaterThan(early!.savedAt);

  await first.act('unplug'); // the transaction ends: written
  await first.step(1_000);
  const charged = await today(first);
  expect(charged.gridWh).toBeGreaterThan(100); // about 6 min at 11 kW
  const ended = await row(first);
  expect(Math.round(ended!.gridWh)).toBe(charged.gridWh);
  // Idle: nothing more is written.
  await first.step(10 * 60_000);
  expect(await row(first)).toEqual(ended);

  const later = first.h.clock.now() + 3_600_000;
  const second = await start(later, await stop(first));
  expect(await today(second)).toEqual(charged);
  await second.step(5_000);
  expect(await today(second)).toEqual(charged);

  const third = await start(TEST_EPOCH + DAY_MS, await stop(second));
  expect(await today(third)).toEqual({ solarWh: 0, gridWh: 0 });
  await third.step(60_000);
  expect(await row(third)).toEqual(ended); // a new day without energy writes nothing
});
