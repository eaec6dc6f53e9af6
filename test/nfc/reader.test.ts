import { afterEach, describe, expect, test } from 'vitest';
import { CMD, Pn532Driver, type Pn532Error } from '../../drivers/pn532/driver.js';
import { APDU_ANSWER_LIMIT_MS, createPn532Reader, RFID_TURN_MS, TARGET_TURN_MS } from '../../drivers/pn532/reader.js';
import { createSimulatedPn532, PHONE_APDU_TIMEOUT_MS, PHONE_POLL_MS } from '../../drivers/pn532/sim.js';
import type { RfidMode } from '../../drivers/types.js';
import { ManualClock, settle } from '../clock.js';

/**
 * The reader (drivers/pn532/reader.ts on the real command layer) against the strict simulated chip, on the manual
 * clock: it starts the chip from Low VBat, recovers from a power cycle, schedules the hybrid mode's turns so a card is
 * read within 500 ms and a phone detected within 1 s whatever their timing, and answers a phone before it gives up.
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function readerOn(mode: RfidMode) {
  const clock = new ManualClock(0);
  const sim = await createSimulatedPn532({ timers: clock });
  const warnings: string[] = [];
  const reader = createPn532Reader(sim.port, { timers: clock, mode, log: { warn: (fields) => warnings.push(JSON.stringify(fields)) } });
  const tags: Array<{ uid: string; at: number }> = [];
  reader.onTag((uid) => tags.push({ uid, at: clock.now() }));
  reader.start();
  cleanups.push(async () => {
    await reader.close();
    await sim.close();
  });
  await clock.advance(0);
  return { clock, sim, reader, tags, warnings };
}

/** Steps the clock 1 ms at a time until `done` (at most `limit` ms); returns the time it took. */
async function until(clock: ManualClock, done: () => boolean, limit: number): Promise<number> {
  const start = clock.now();
  while (!done() && clock.now() - start < limit) await clock.advance(1);
  return clock.now() - start;
}

describe('the PN532 reader against the strict simulated chip', () => {
  test('it brings the chip out of Low VBat (wake-up + SAMConfiguration first) and reads a card at once in RFID only', async () => {
    const { clock, sim, tags } = await readerOn('rfid');
    expect(sim.power()).toBe('normal');
    expect(sim.commands.slice(0, 5)).toEqual([CMD.SAMConfiguration, CMD.GetFirmwareVersion, CMD.SetParameters, CMD.ReadRegister, CMD.WriteRegister]);
    await clock.advance(1_234);
    sim.tap('04A1B2C3');
    await settle();
    expect(tags).toEqual([{ uid: '04A1B2C3', at: 1_234 }]);
  });

  test('after a power cycle (Low VBat again) it fails, wakes the chip up again and goes on reading', async () => {
    const { clock, sim, tags, warnings } = await readerOn('rfid');
    sim.reset();
    sim.tap('0A0B0C0D');
    // The waiting turn ends after RFID_TURN_MS; its abort and InRelease are lost: the reader wakes the chip again.
    await until(clock, () => tags.length > 0, RFID_TURN_MS + 5_000);
    expect(tags.map((t) => t.uid)).toEqual(['0A0B0C0D']);
    expect(warnings.some((w) => w.includes('no ACK'))).toBe(true);
    expect(sim.power()).toBe('normal');
  });

  test('hybrid: target turns of TARGET_TURN_MS, each followed by one reader attempt answered at once', async () => {
    const { clock, sim, reader } = await readerOn('hybrid');
    const calls: Array<{ code: number; at: number }> = [];
    const command = reader.driver.command.bind(reader.driver);
    reader.driver.command = (code, params, options) => {
      calls.push({ code, at: clock.now() });
      return command(code, params, options);
    };
    await clock.advance(2_000);
    const turns = calls.filter((c) => c.code === CMD.TgInitAsTarget || c.code === CMD.InListPassiveTarget);
    expect(turns.length).toBeGreaterThanOrEqual(14);
    for (const [i, t] of turns.entries()) {
      const next = turns[i + 1];
      if (!next) break;
      // Alternating, the target turn lasting TARGET_TURN_MS, the reader attempt no time on the manual clock.
      expect({ i, code: next.code, after: next.at - t.at }).toEqual({
        i,
        code: t.code === CMD.TgInitAsTarget ? CMD.InListPassiveTarget : CMD.TgInitAsTarget,
        after: t.code === CMD.TgInitAsTarget ? TARGET_TURN_MS : 0,
      });
    }
    expect(TARGET_TURN_MS).toBeGreaterThanOrEqual(PHONE_POLL_MS); // every target turn holds one of a phone's polls
    expect(calls.filter((c) => c.code === CMD.RFConfiguration).length).toBeLessThanOrEqual(1); // single attempts: set once
    expect(sim.power()).toBe('power-down'); // in a target turn
  });

  test('hybrid: a card is read within 500 ms whenever it is tapped', async () => {
    const { clock, sim, tags } = await readerOn('hybrid');
    const latencies: number[] = [];
    for (let phase = 0; phase < TARGET_TURN_MS + 20; phase += 7) {
      await clock.advance(phase);
      const before = tags.length;
      sim.tap(`04A1B2${(phase & 0xff).toString(16).padStart(2, '0')}`);
      latencies.push(await until(clock, () => tags.length > before, 2_000));
      await clock.advance(2 * TARGET_TURN_MS); // a check sees the card gone
    }
    expect(Math.max(...latencies)).toBeLessThanOrEqual(TARGET_TURN_MS);
    expect(Math.max(...latencies)).toBeLessThan(500);
  });

  test('hybrid: a phone is detected within 1 s whenever it comes and whatever the phase of its polls', async () => {
    const { clock, sim, reader } = await readerOn('hybrid');
    const latencies: number[] = [];
    for (let phase = 0; phase < TARGET_TURN_MS + 20; phase += 23) {
      for (const pollPhaseMs of [0, 50, 100, 150, 200]) {
        await clock.advance(phase);
        const phone = sim.phone({ pollPhaseMs });
        latencies.push(await until(clock, () => phone.connected, 3_000));
        phone.leave();
        await settle();
        reader.resumeChecking();
        await settle();
      }
    }
    expect(Math.max(...latencies)).toBeLessThan(1_000);
    expect(Math.max(...latencies)).toBeLessThanOrEqual(TARGET_TURN_MS + PHONE_POLL_MS);
  });

  test('a phone gets 6F 00 before it gives up when nothing answers its APDU', async () => {
    const { clock, sim, reader } = await readerOn('hybrid');
    reader.onApdu(() => undefined); // no link answers
    const phone = sim.phone();
    await until(clock, () => phone.connected, 1_000);
    const reply = phone.transceive(Uint8Array.of(0x00, 0xa4, 0x04, 0x00, 0x00)).then(
      (r) => Buffer.from(r).toString('hex'),
      (e: Error) => e.message,
    );
    await clock.advance(APDU_ANSWER_LIMIT_MS);
    expect(APDU_ANSWER_LIMIT_MS).toBeLessThan(PHONE_APDU_TIMEOUT_MS);
    expect(await reply).toBe('6f00');
    expect(phone.connected).toBe(true);
  });
});

describe('the command layer against the strict simulated chip', () => {
  test('the wake-up goes with every try of SAMConfiguration: a first try lost on the line does not leave the chip in Low VBat', async () => {
    const clock = new ManualClock(0);
    const sim = await createSimulatedPn532({ timers: clock });
    const driver = new Pn532Driver(sim.port, { timers: clock });
    cleanups.push(async () => {
      driver.close();
      await sim.close();
    });
    const write = sim.port.write.bind(sim.port) as (data: Buffer, cb?: (err: Error | null | undefined) => void) => boolean;
    let writes = 0;
    (sim.port as unknown as { write: typeof write }).write = (data, cb) => {
      if (writes++ > 0) return write(data, cb);
      cb?.(null); // lost on the line
      return true;
    };
    const woke = driver.wakeUp().then(
      () => 'awake',
      (e: Pn532Error) => e.code,
    );
    for (let i = 0; i < 10; i++) await clock.advance(100);
    expect(await woke).toBe('awake');
    expect(sim.power()).toBe('normal');
  });
});
