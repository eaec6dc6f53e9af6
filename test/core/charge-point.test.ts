import { describe, expect, it } from 'vitest';
import type { ChargePointHardware } from '../../drivers/types.js';
import { transactions as transactionsTable } from '../../db/schema.js';
import { CHECKPOINT_INTERVAL_MS } from '../../services/core/metering.js';
import {
  CONTACTOR_SETTLE_MS,
  PILOT_DEBOUNCE_MS,
  POLL_INTERVAL_MS,
  TEMPERATURE_LIMIT_C,
  TEMPERATURE_RESUME_C,
  TEMPERATURE_WARNING_C,
} from '../../services/core/supervision.js';
import { HMI_PATTERNS } from '../../services/core/hmi.js';
import { askToCharge, charging, codes, KNOWN, systemState, useChargers } from '../charging/scenario.js';
import { timedCharger } from './timed.js';

/**
 * The charge-point core's supervision (services/core/supervision.ts) at its boundaries, through the API and the
 * simulator with the manual clock: the temperature thresholds, the contactor's auxiliary contact (none, late, a
 * latched fault), the meter warning. Written for the mutants Stryker found surviving there (docs/mutation-testing.md).
 */

const chargers = useChargers();
const charger = chargers.start;

describe('temperature supervision', () => {
  it('the warning from 60 °C; the fault from 80 °C, held down to 75 °C; no warning beside the fault', async () => {
    const c = await charger();
    const reads = async (celsius: number) => {
      await c.sim('temperature', { celsius });
      await c.step(POLL_INTERVAL_MS);
    };
    await reads(TEMPERATURE_WARNING_C - 0.5);
    expect(await codes(c)).toEqual([]);
    await reads(TEMPERATURE_WARNING_C);
    expect(await codes(c)).toEqual(['HIGH_TEMPERATURE']);
    await reads(TEMPERATURE_LIMIT_C - 0.5);
    expect([await systemState(c), await codes(c)]).toEqual(['idle', ['HIGH_TEMPERATURE']]);
    await reads(TEMPERATURE_LIMIT_C);
    expect([await systemState(c), await codes(c)]).toEqual(['error', ['OVERTEMPERATURE']]);
    await reads(TEMPERATURE_RESUME_C);
    expect([await systemState(c), await codes(c)]).toEqual(['error', ['OVERTEMPERATURE']]);
    await reads(TEMPERATURE_RESUME_C - 0.5);
    expect([await systemState(c), await codes(c)]).toEqual(['idle', ['HIGH_TEMPERATURE']]);
    // Rounded to a tenth in the system state.
    await reads(25.26);
    expect((await c.state()).ambientTemp).toBe(25.3);
  });
});

describe('meter supervision', () => {
  it('a meter that stops answering is logged once, not at every poll', async () => {
    const c = await charger();
    await c.sim('fault', { fault: 'meter-offline' });
    await c.step(3 * POLL_INTERVAL_MS);
    expect(await codes(c)).toEqual(['METER_NOT_RESPONDING']);
    expect(c.h.logs.filter((l) => l.includes('the energy meter does not answer'))).toHaveLength(1);
  });
});

describe('contactor supervision', () => {
  it('a contactor without an auxiliary contact is not supervised: charging and stopping raise no fault', async () => {
    const c = await charger({ chargePoint: (hw) => ({ ...hw, contactor: { ...hw.contactor, feedback: () => undefined } }) });
    await charging(c);
    await c.step(2 * POLL_INTERVAL_MS);
    expect([await systemState(c), await codes(c)]).toEqual(['charging', []]);
    expect((await c.view()).plant.contactorClosed).toBe(true);
    await c.act('pause');
    await c.step(2 * POLL_INTERVAL_MS);
    expect([await systemState(c), await codes(c)]).toEqual(['charging_pause', []]);
  });

  it('a contactor that did not close stays latched while the EV pauses (C to B); only the unplug clears it', async () => {
    const c = await charger();
    await c.sim('fault', { fault: 'contactor-stuck-open' });
    await askToCharge(c);
    await c.step(CONTACTOR_SETTLE_MS);
    expect([await systemState(c), await codes(c)]).toEqual(['error', ['CONTACTOR_NOT_CLOSING']]);
    await c.h.http('DELETE', '/sim/fault/contactor-stuck-open');
    await c.act('pause');
    await c.step(2 * POLL_INTERVAL_MS);
    expect([await systemState(c), await codes(c)]).toEqual(['error', ['CONTACTOR_NOT_CLOSING']]);
    await c.act('unplug');
    expect([await systemState(c), await codes(c)]).toEqual(['idle', []]);
  });

  it('the auxiliary contact gets its settle time also when a poll falls just after a command (a real contact is late)', async () => {
    const LAG_MS = 30;
    const { c, untilBeforePoll } = await timedCharger(charger, (hw, clock) => {
      let contact = false;
      return {
        ...hw,
        contactor: {
          ...hw.contactor,
          set(closed) {
            hw.contactor.set(closed);
            clock.setTimeout(() => (contact = closed), LAG_MS);
          },
          feedback: () => contact,
        },
      };
    });
    await c.act('plug');
    await c.tag(KNOWN);
    // Acted on one debounce after the CP changes: the contactor closes 10 ms before a poll, its contact 20 ms after.
    await untilBeforePoll(PILOT_DEBOUNCE_MS + 10);
    await c.sim('charge');
    await c.step(2 * POLL_INTERVAL_MS);
    expect([await systemState(c), await codes(c)]).toEqual(['charging', []]);
    await untilBeforePoll(PILOT_DEBOUNCE_MS + 10);
    await c.sim('pause'); // and opens 10 ms before a poll
    await c.step(2 * POLL_INTERVAL_MS);
    expect([await systemState(c), await codes(c)]).toEqual(['charging_pause', []]);
  });
});

describe('transaction checkpoints', () => {
  it('a poll exactly CHECKPOINT_INTERVAL_MS after the last checkpoint writes the next one', async () => {
    const { c, untilBeforePoll } = await timedCharger(charger);
    await charging(c);
    const row = async () => (await c.h.controller.database.db.select().from(transactionsTable))[0]!;
    // The EV pauses exactly at a poll: a state change, so a checkpoint then.
    await untilBeforePoll(PILOT_DEBOUNCE_MS);
    await c.sim('pause');
    await c.step(PILOT_DEBOUNCE_MS);
    const paused = c.h.clock.now();
    expect((await row()).checkpointedAt).toBe(paused);
    await c.step(CHECKPOINT_INTERVAL_MS - 1);
    expect((await row()).checkpointedAt).toBe(paused);
    await c.step(1);
    expect((await row()).checkpointedAt).toBe(paused + CHECKPOINT_INTERVAL_MS);
  });
});

describe('outputs', () => {
  it('each output is commanded when it changes, not again; the LEDs show the HMI state', async () => {
    const commands: string[] = [];
    const c = await charger({
      chargePoint: (hw) => ({
        ...hw,
        pilot: { ...hw.pilot, setDuty: (d) => (commands.push(d === null ? 'pwm off' : 'pwm on'), hw.pilot.setDuty(d)) },
        cableLock: { ...hw.cableLock, set: (on) => (commands.push(on ? 'lock' : 'unlock'), hw.cableLock.set(on)) },
        contactor: { ...hw.contactor, set: (on) => (commands.push(on ? 'close' : 'open'), hw.contactor.set(on)) },
      }),
    });
    await c.act('plug');
    expect((await c.view()).plant.leds).toEqual(HMI_PATTERNS['Waiting for authorization']);
    await c.tag(KNOWN);
    await c.act('charge');
    await c.step(3 * POLL_INTERVAL_MS);
    await c.tag(KNOWN); // stops the transaction: under load, through the power cut
    await c.act('pause');
    await c.act('unplug');
    expect(commands).toEqual(['pwm on', 'lock', 'close', 'pwm off', 'open', 'unlock']);
    await c.step(2 * POLL_INTERVAL_MS); // past the tag's 'Reading card'
    expect((await c.view()).plant.leds).toEqual(HMI_PATTERNS.Available);
  });

  it('a graceful stop while charging leaves the outputs safe: contactor open, PWM off, cable unlocked', async () => {
    let plant!: ChargePointHardware;
    const c = await charger({ chargePoint: (hw) => (plant = hw) });
    await charging(c);
    expect([plant.contactor.commanded(), plant.pilot.duty() !== null, plant.cableLock.commanded()]).toEqual([true, true, true]);
    await c.h.stop();
    chargers.stopped(c);
    expect([plant.contactor.commanded(), plant.pilot.duty(), plant.cableLock.commanded()]).toEqual([false, null, false]);
  });
});
