import { afterEach, describe, expect, it, vi } from 'vitest';
import { realTimers } from '../../drivers/timers.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { startOcppCharger, until, type OcppCharger } from '../ocpp/support.js';
import { KNOWN, startCharger, type Charger } from './scenario.js';

/**
 * The system clock set while the controller runs (NTP correcting a Raspberry Pi that booted without a real-time
 * clock): the harness's wall clock is moved apart from its manual clock, which stands for the monotonic time that
 * timers and durations use.
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const started: Array<{ h: { stop(): Promise<void> }; csms?: { close(): Promise<void> } }> = [];
afterEach(async () => {
  for (const c of started.splice(0)) {
    await c.h.stop();
    await c.csms?.close();
  }
});

/** A charger whose wall clock `setWall` moves by `ms` (the manual clock does not). */
async function chargerWithWall(): Promise<{ c: Charger; clock: ManualClock; setWall(ms: number): void }> {
  const clock = new ManualClock(TEST_EPOCH);
  let offset = 0;
  const c = await startCharger({ harness: { clock, wall: () => clock.now() + offset } });
  started.push(c);
  return { c, clock, setWall: (ms) => void (offset += ms) };
}

const durationMs = (t: { startTransaction: string; endTransaction: string }) => Date.parse(t.endTransaction) - Date.parse(t.startTransaction);

describe('the system clock set while charging', () => {
  for (const [what, jump] of [
    ['back an hour', -HOUR],
    ['forward a day', DAY],
  ] as const) {
    it(`set ${what}: the transaction is neither split, lengthened nor shortened, and the next one lists after it`, async () => {
      const { c, clock, setWall } = await chargerWithWall();
      await c.act('plug');
      await c.tag(KNOWN);
      await c.act('charge');
      const startedAt = clock.now();
      await c.step(60_000);
      setWall(jump);
      await c.step(60_000);
      const live = (await c.state()).transaction;
      expect(Math.abs(live.transactionDuration - (clock.now() - startedAt) / 1000)).toBeLessThanOrEqual(1);
      await c.act('unplug');
      const firstMs = clock.now() - startedAt;

      await c.act('plug');
      await c.tag(KNOWN);
      await c.act('charge');
      const secondStart = clock.now();
      await c.step(30_000);
      await c.act('unplug');
      const secondMs = clock.now() - secondStart;

      const list = (await c.api('GET', '/v1/transactions')).json as Array<{ startTransaction: string; endTransaction: string }>;
      expect(list).toHaveLength(2);
      const [first, second] = list;
      // Durations as charged (within the debounces between the steps above and the core's start and stop).
      expect(Math.abs(durationMs(first!) - firstMs)).toBeLessThanOrEqual(1_000);
      expect(Math.abs(durationMs(second!) - secondMs)).toBeLessThanOrEqual(1_000);
      // In order, not overlapping.
      expect(Date.parse(second!.startTransaction)).toBeGreaterThanOrEqual(Date.parse(first!.endTransaction));
    });
  }

  it("a session's duration limit counts the time charged: the clock set forward a day does not end it early", async () => {
    const { c, setWall } = await chargerWithWall();
    const res = await c.api('PATCH', '/v1/settings', { params: [{ key: 'SessionDurationLimit', value: 2 }] });
    expect(res.status, res.text).toBe(200);
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    await c.step(30_000);
    setWall(DAY);
    await c.step(30_000);
    expect((await c.state()).energy).toMatchObject({ currentA: 16 });
    await c.step(61_000);
    expect((await c.state()).energy).toMatchObject({ currentA: 0, reason: 'session' });
  });

  it('a login session neither ends early nor lives on: 60 s without a call, whatever the wall clock did', async () => {
    const { c, setWall } = await chargerWithWall();
    const session = await c.h.login();
    const call = () => c.h.http('GET', '/v1/system_state', { session });
    setWall(DAY);
    await c.h.step(30_000);
    expect((await call()).status).toBe(200);
    setWall(-DAY - HOUR);
    await c.h.step(59_000);
    expect((await call()).status).toBe(200);
    await c.h.step(60_000);
    const ended = await call();
    expect(ended.status).toBe(401);
    expect(ended.json.code).toBe(1004);
  });
});

describe('the OCPP offline queue', () => {
  it('a refused message is sent again after its interval, not an hour later, when the clock was set back meanwhile', async () => {
    const clock = new ManualClock(TEST_EPOCH);
    let offset = 0;
    const c: OcppCharger = await startOcppCharger({
      clock,
      settings: { OcppTransactionMessageAttempts: 3, OcppTransactionMessageRetryInterval: 20 },
      harness: { wall: () => clock.now() + offset },
    });
    started.push(c);
    let refuse = true;
    c.csms.answer('StartTransaction', () => {
      if (refuse) throw new Error('not now');
      return { transactionId: 7, idTagInfo: { status: 'Accepted' } };
    });
    await c.online();
    await c.act('plug');
    await c.tag(KNOWN);
    await until(c, () => c.csms.calls('StartTransaction').length === 1, 'the first attempt');
    refuse = false;
    offset = -HOUR;
    await c.step(20_000);
    await until(c, () => c.csms.calls('StartTransaction').length === 2, 'the second attempt, 20 s later');
  });
});

describe('the real clock of timers and durations', () => {
  it('does not follow the system clock: it reads as a date and moves only with elapsed time', () => {
    const before = realTimers.now();
    expect(Number.isInteger(before)).toBe(true); // whole ms, as Date.now(): times in records and messages are integers
    expect(Math.abs(before - Date.now())).toBeLessThan(DAY); // a date, near the wall clock
    const spy = vi.spyOn(Date, 'now').mockReturnValue(Date.now() + DAY);
    try {
      expect(realTimers.now() - before).toBeLessThan(HOUR);
    } finally {
      spy.mockRestore();
    }
  });
});
