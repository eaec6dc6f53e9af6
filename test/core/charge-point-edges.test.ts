import { describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import type { ChargePointHardware, MeterReading } from '../../drivers/types.js';
import { transactions as transactionsTable } from '../../db/schema.js';
import { CONTACTOR_SETTLE_MS, PILOT_DEBOUNCE_MS, POLL_INTERVAL_MS, TEMPERATURE_LIMIT_C } from '../../services/core/supervision.js';
import { settle } from '../clock.js';
import { askToCharge, charging, codes, KNOWN, systemState, useChargers } from '../charging/scenario.js';
import { timedCharger } from './timed.js';

/**
 * The charge-point core (services/core/charge-point.ts and its parts) at the edges of its rules, through the API, the simulator,
 * the devices it commands and the charge cycle's inspection events, with the manual clock: CP glitches (also reported
 * late), supervision faults told once, the contactor's settle time while other inputs arrive and the poll after it,
 * the graceful stop (outputs, devices, poll loop, reactions), devices slow at start, the state it sends, checkpoints,
 * settling, a failed charge cycle. Written for the mutants Stryker found surviving there (docs/mutation-testing.md).
 */

const chargers = useChargers();

/** Collects the PILOT events the charge cycle receives (the debounced CP levels). */
function pilotEvents() {
  const levels: string[] = [];
  const inspect = (e: InspectionEvent) => {
    if (e.type === '@xstate.event' && e.event.type === 'PILOT') levels.push(e.event.level);
  };
  return { levels, inspect };
}

describe('CP debounce', () => {
  it('a glitch shorter than the debounce (B, A for 20 ms, B) reaches the charge cycle as no event at all', async () => {
    const pilot = pilotEvents();
    const c = await chargers.start({ inspect: pilot.inspect });
    await c.act('plug');
    expect(pilot.levels).toEqual(['b']);
    await c.sim('unplug');
    await c.step(PILOT_DEBOUNCE_MS / 2);
    await c.sim('plug');
    await c.step(3 * PILOT_DEBOUNCE_MS);
    expect([pilot.levels, await systemState(c)]).toEqual([['b'], 'wait_for_auth']);
    await c.act('unplug');
    expect([pilot.levels, await systemState(c)]).toEqual([['b', 'a'], 'idle']);
  });

  it('a glitch whose end is reported late (with its reading time) is filtered too: the level is read again when the debounce ends', async () => {
    const LATE_MS = 30;
    const pilot = pilotEvents();
    // A CP driver whose reports arrive LATE_MS after the change, with the time of the change; level() reads it live.
    const c = await chargers.start({
      inspect: pilot.inspect,
      chargePoint: (hw, clock) => ({
        ...hw,
        pilot: { ...hw.pilot, onLevel: (listener) => hw.pilot.onLevel((level, at = clock.now()) => void clock.setTimeout(() => listener(level, at), LATE_MS)) },
      }),
    });
    await c.act('plug');
    await c.tag(KNOWN);
    const before = await c.state();
    expect([before.systemState, pilot.levels]).toEqual(['connected', ['b']]);
    // A for 20 ms: its report arrives at 30 ms (debounce due at 40 ms), the return to B's at 50 ms.
    await c.sim('unplug');
    await c.step(PILOT_DEBOUNCE_MS / 2);
    await c.sim('plug');
    await c.step(3 * PILOT_DEBOUNCE_MS);
    const after = await c.state();
    expect([after.systemState, after.transaction?.transactionId, pilot.levels]).toEqual(['connected', before.transaction.transactionId, ['b']]);
  });
});

describe('supervision faults', () => {
  it('the charge cycle hears of a supervision fault when it is raised and when it clears, not at every reading', async () => {
    const faults: string[] = [];
    const c = await chargers.start({
      inspect: (e) => {
        if (e.type === '@xstate.event' && e.event.type === 'FAULT') faults.push(`${e.event.fault} ${e.event.active ? 'raised' : 'cleared'}`);
      },
    });
    await c.step(3 * POLL_INTERVAL_MS);
    expect(faults).toEqual([]);
    await c.sim('temperature', { celsius: TEMPERATURE_LIMIT_C });
    await c.step(3 * POLL_INTERVAL_MS);
    expect(faults).toEqual(['overtemperature raised']);
    await c.sim('temperature', { celsius: 25 });
    await c.step(3 * POLL_INTERVAL_MS);
    expect(faults).toEqual(['overtemperature raised', 'overtemperature cleared']);
  });
});

describe('contactor supervision', () => {
  it('a contactor that welds after a charge (commanded open, its contact closed) is found at the next poll', async () => {
    const c = await chargers.start();
    await charging(c);
    await c.act('pause');
    await c.step(CONTACTOR_SETTLE_MS);
    expect([await systemState(c), await codes(c)]).toEqual(['charging_pause', []]);
    await c.sim('fault', { fault: 'contactor-welded' });
    await c.step(POLL_INTERVAL_MS);
    expect(await codes(c)).toEqual(['CONTACTOR_WELDED']);
  });

  it('the auxiliary contact is checked CONTACTOR_SETTLE_MS after the command, also when another input changes the charge cycle meanwhile', async () => {
    const { c, untilBeforePoll } = await timedCharger(chargers.start);
    await c.sim('fault', { fault: 'contactor-stuck-open' });
    await c.act('plug');
    await c.tag(KNOWN);
    // The contactor is commanded closed one debounce after the EV asks, well before the next poll.
    await untilBeforePoll(PILOT_DEBOUNCE_MS + CONTACTOR_SETTLE_MS + 300);
    await c.sim('charge');
    await c.step(PILOT_DEBOUNCE_MS);
    expect([await systemState(c), (await c.view()).plant.contactorCommanded]).toEqual(['charging', true]);
    await c.step(CONTACTOR_SETTLE_MS / 2);
    await c.sim('load-limit', { amps: 10 }); // the PWM changes, the contactor does not
    expect((await c.state()).transaction).not.toBeNull();
    await c.step(CONTACTOR_SETTLE_MS / 2 - 1);
    expect([await systemState(c), await codes(c)]).toEqual(['charging', []]);
    await c.step(1);
    expect([await systemState(c), await codes(c)]).toEqual(['error', ['CONTACTOR_NOT_CLOSING']]);
  });
});

describe('graceful stop', () => {
  /**
   * Charging, then a graceful stop: at a quiet moment (the poll timer armed), or while a poll waits for the meter
   * and its temperature reading, answered during the stop, raises a fault the charge cycle would act on.
   */
  for (const inFlight of [false, true]) {
    const poll = inFlight ? ' (a poll in flight)' : '';
    it(`outputs made safe once and never commanded again, devices closed after their reads, no poll after it${poll}`, async () => {
      const timeline: string[] = [];
      let holding = false;
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let safe!: () => void;
      const madeSafe = new Promise<void>((r) => (safe = r));
      const c = await chargers.start({
        chargePoint: (hw) => ({
          ...hw,
          meter: {
            read: async (): Promise<MeterReading> => {
              timeline.push('read');
              if (holding) {
                holding = false;
                await released;
                timeline.push('held read answered');
              }
              return hw.meter.read();
            },
          },
          pilot: { ...hw.pilot, setDuty: (d) => (timeline.push(d === null ? 'pwm off' : 'pwm on'), hw.pilot.setDuty(d)) },
          cableLock: { ...hw.cableLock, set: (on) => (timeline.push(on ? 'lock' : 'unlock'), hw.cableLock.set(on), on ? undefined : safe()) },
          contactor: { ...hw.contactor, set: (on) => (timeline.push(on ? 'close' : 'open'), hw.contactor.set(on)) },
          close: async () => (timeline.push('devices closed'), hw.close()),
        }),
      });
      await charging(c);
      if (inFlight) {
        holding = true;
        await c.sim('temperature', { celsius: 85 });
        await c.h.clock.advance(POLL_INTERVAL_MS); // the next poll waits for its meter reading
        expect(timeline.at(-1)).toBe('read');
      }
      const since = timeline.length;
      const stopped = c.h.stop();
      await madeSafe;
      await settle();
      release();
      await stopped;
      chargers.stopped(c);
      const atStop = timeline.slice(since);
      // The stop's own transaction reading (Reboot), the poll's reading answered; the devices close after both.
      expect(atStop).toEqual(['open', 'pwm off', 'unlock', 'read', ...(inFlight ? ['held read answered'] : []), 'devices closed']);
      await c.h.clock.advance(3 * POLL_INTERVAL_MS);
      await settle();
      expect(timeline.slice(since)).toEqual(atStop);
    });
  }

  it('measures the contactor opening as the reaction to a reason already there (the EV left C 10 ms before)', async () => {
    let plant!: ChargePointHardware;
    const c = await chargers.start({ chargePoint: (hw) => (plant = hw) });
    await charging(c);
    expect(plant.contactor.commanded()).toBe(true);
    await c.sim('pause'); // C to B: the charge cycle would open the contactor after the debounce
    await c.step(10);
    await c.h.stop();
    chargers.stopped(c);
    expect(plant.contactor.commanded()).toBe(false);
    const text = await c.h.controller.metrics.text();
    const sample = (series: string) => text.split('\n').find((l) => l.startsWith(`${series} `));
    expect(sample('safety_reaction_seconds_count{reaction="contactor_open_on_pause"}')).toBe(
      'safety_reaction_seconds_count{reaction="contactor_open_on_pause"} 1',
    );
    expect(sample('safety_reaction_max_seconds{reaction="contactor_open_on_pause"}')).toBe(
      'safety_reaction_max_seconds{reaction="contactor_open_on_pause"} 0.01',
    );
  });
});

/** Holds the first reading of the device read it wraps until `answer()`: a device slow to give its first reading. */
function firstReadingHeld() {
  let answer!: () => void;
  const answered = new Promise<void>((r) => (answer = r));
  let first = true;
  const wrap =
    <T>(read: () => Promise<T>) =>
    async (): Promise<T> => {
      if (first) {
        first = false;
        await answered;
      }
      return read();
    };
  return { answer, wrap };
}

describe('supervision at start', () => {
  it('a meter slow to give its first reading is not reported as not answering meanwhile', async () => {
    const held = firstReadingHeld();
    const c = await chargers.start({ chargePoint: (hw) => ({ ...hw, meter: { read: held.wrap(hw.meter.read) } }) });
    await c.sim('plug');
    await c.h.clock.advance(2 * PILOT_DEBOUNCE_MS); // a state to show while the first reading is awaited
    const waiting = [await systemState(c), await codes(c)];
    held.answer();
    await c.step(0);
    expect(waiting).toEqual(['wait_for_auth', []]);
    expect((await c.view()).plant.vehicle).toBe('connected');
  });

  it('a temperature sensor slow to answer its first reading is not reported as not answering meanwhile', async () => {
    const held = firstReadingHeld();
    const c = await chargers.start({ chargePoint: (hw) => ({ ...hw, temperature: { read: held.wrap(hw.temperature.read) } }) });
    const waiting = [await codes(c), (await c.state()).ambientTemp];
    held.answer();
    await c.step(0);
    expect(waiting).toEqual([[], undefined]);
    expect([await codes(c), (await c.state()).ambientTemp]).toEqual([[], 25]);
  });
});

describe('the state the core sends', () => {
  it('CP D without ventilation: the vehicle is connected (a suspended transaction), not a connector error', async () => {
    const c = await chargers.start();
    await c.sim('ev', { ventilation: true });
    await askToCharge(c);
    expect(await c.state()).toMatchObject({ systemState: 'error', type2State: 'd', connectionState: 'vehicle_connected_type2' });
  });

  it('the meter reading: the energy register and power as read (rounded), one current per phase', async () => {
    const c = await chargers.start();
    await charging(c);
    await c.step(5 * POLL_INTERVAL_MS);
    const { plant } = await c.view();
    expect(plant.energyWh).toBeGreaterThan(10);
    expect(c.h.controller.charging.coreState()?.meter).toEqual({
      energyWh: Math.round(plant.energyWh),
      powerW: Math.round(plant.powerW),
      currentsA: plant.currentsA,
      voltagesV: plant.currentsA.map(() => 230),
    });
  });
});

describe('transaction checkpoints', () => {
  it('written at each change of state, not at an input that changes none (a new load limit while charging)', async () => {
    const c = await chargers.start();
    await charging(c);
    const checkpointedAt = async () => (await c.h.controller.database.db.select().from(transactionsTable))[0]!.checkpointedAt;
    const before = await checkpointedAt();
    await c.step(2 * POLL_INTERVAL_MS);
    await c.sim('load-limit', { amps: 10 });
    await c.step(0);
    expect([await systemState(c), await checkpointedAt()]).toEqual(['charging', before]);
    await c.act('pause');
    expect(await checkpointedAt()).toBe(c.h.clock.now() - 50 + PILOT_DEBOUNCE_MS);
  });
});

describe('the core waits for its devices', () => {
  it("a step of the harness (the core's settled) waits for a meter reading in flight", async () => {
    let holding = false;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const c = await chargers.start({
      chargePoint: (hw) => ({ ...hw, meter: { read: async () => (holding && (await released), hw.meter.read()) } }),
    });
    holding = true;
    await c.h.clock.advance(POLL_INTERVAL_MS); // the next poll waits for its meter reading
    let done = false;
    const step = c.step(0).then(() => (done = true));
    await settle(20);
    const early = done;
    release();
    await step;
    expect([early, done]).toEqual([false, true]);
  });
});

describe('a charge cycle that fails', () => {
  // Nothing decides any more: the outputs go safe, and the main thread loses the core as it would a dead one (the
  // process ends with code 70 for its supervisor to restart it; the harness records why instead of exiting).
  it('leaves the outputs safe, says why in the log, and the main thread loses the core, once (a buzzer driver that throws at a tag under load)', async () => {
    let plant!: ChargePointHardware;
    let broken = false;
    const c = await chargers.start({
      chargePoint: (hw) =>
        (plant = {
          ...hw,
          buzzer: {
            ...hw.buzzer,
            beep: (count, ms) => {
              if (broken) throw new Error('buzzer GPIO write failed');
              hw.buzzer.beep(count, ms);
            },
          },
        }),
    });
    await charging(c);
    expect([plant.contactor.commanded(), plant.pilot.duty() !== null, plant.cableLock.commanded()]).toEqual([true, true, true]);
    expect(c.h.coreLost).toEqual([]);
    broken = true;
    await c.tag(KNOWN);
    expect([plant.contactor.commanded(), plant.pilot.duty(), plant.cableLock.commanded()]).toEqual([false, null, false]);
    const failed = c.h.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'charge cycle failed');
    expect(failed).toEqual([expect.objectContaining({ err: expect.stringContaining('buzzer GPIO write failed') })]);
    await c.step(1000);
    expect(c.h.coreLost).toEqual([expect.stringMatching(/^it failed: .*buzzer GPIO write failed/)]);
  });
});
