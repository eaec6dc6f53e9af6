import { describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import type { ChargePointHardware, MeterReading } from '../../drivers/types.js';
import { CONTACTOR_SETTLE_MS, PILOT_DEBOUNCE_MS, POLL_INTERVAL_MS } from '../../services/core/charge-point.js';
import { settle } from '../clock.js';
import { KNOWN, useChargers } from '../charging/scenario.js';
import { codes, systemState, timedCharger } from './timed.js';

/**
 * The charge-point core (services/core/charge-point.ts) at the edges its supervision and stop rules draw, through the
 * API, the simulator and the charge cycle's inspection events with the manual clock: CP glitches (also reported
 * late), the contactor's settle time while other inputs arrive, the poll loop and the safety reactions at a graceful
 * stop. Written for the mutants Stryker found surviving there (docs/mutation-testing.md).
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

describe('contactor supervision', () => {
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
  it('ends the poll loop, also when a poll is waiting for the meter as the stop begins', async () => {
    let reads = 0;
    let holding = false;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let stopping!: () => void;
    const safe = new Promise<void>((r) => (stopping = r));
    const c = await chargers.start({
      chargePoint: (hw) => ({
        ...hw,
        meter: {
          read: async (): Promise<MeterReading> => {
            reads++;
            if (holding) await released;
            return hw.meter.read();
          },
        },
        // The stop opens the contactor first thing (nothing else opens it while idle).
        contactor: { ...hw.contactor, set: (closed) => (hw.contactor.set(closed), closed ? undefined : stopping()) },
      }),
    });
    holding = true;
    const polled = reads;
    await c.h.clock.advance(POLL_INTERVAL_MS);
    expect(reads).toBe(polled + 1); // that poll waits for its reading
    const stopped = c.h.stop();
    await safe;
    holding = false;
    release();
    await stopped;
    chargers.stopped(c);
    const afterStop = reads;
    await c.h.clock.advance(3 * POLL_INTERVAL_MS);
    await settle();
    expect(reads).toBe(afterStop);
  });

  it('measures the contactor opening as the reaction to a reason already there (the EV left C 10 ms before)', async () => {
    let plant!: ChargePointHardware;
    const c = await chargers.start({ chargePoint: (hw) => (plant = hw) });
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    expect(plant.contactor.commanded()).toBe(true);
    await c.sim('pause'); // C to B: the charge cycle would open the contactor after the debounce
    await c.step(10);
    await c.h.stop();
    chargers.stopped(c);
    expect(plant.contactor.commanded()).toBe(false);
    const text = await c.h.controller.metrics.text();
    const sample = (series: string) => text.split('\n').find((l) => l.startsWith(`${series} `));
    expect(sample('safety_reaction_seconds_count{reaction="contactor_open_on_pause"}')).toBe('safety_reaction_seconds_count{reaction="contactor_open_on_pause"} 1');
    expect(sample('safety_reaction_max_seconds{reaction="contactor_open_on_pause"}')).toBe('safety_reaction_max_seconds{reaction="contactor_open_on_pause"} 0.01');
  });
});
