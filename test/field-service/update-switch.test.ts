import { describe, expect, test } from 'vitest';
import { createUpdateSwitch, IDLE_CHECK_MS } from '../../bin/update-switch.js';
import type { SwitchMode } from '../../services/field-service/update-settings.js';

/**
 * Switching to an installed update never cuts a charge (docs/field-service.md#a-charge-running): in wait-for-idle
 * new charges may start while it waits; in finish-charge the charge point refuses new ones from the request on.
 */

function manualInterval() {
  let fn: (() => void) | undefined;
  return {
    timers: { setInterval: (f: () => void) => ((fn = f), 1), clearInterval: () => (fn = undefined) },
    tick: () => fn?.(),
    get armed() {
      return fn !== undefined;
    },
  };
}

/** A charge point as the switch sees it: whether a transaction runs, and the refusals it was asked for. */
function chargePoint(charging: boolean) {
  const cp = {
    charging,
    refusals: [] as string[],
    coreState: () => (cp.charging ? { transaction: {} } : { transaction: undefined }) as never,
    refuseNewCharges: (why: { errorCode: string }) => void cp.refusals.push(why.errorCode),
  };
  return cp;
}

function setUp(mode: SwitchMode, charging: boolean) {
  const clock = manualInterval();
  let cp = chargePoint(charging);
  const reasons: string[] = [];
  const info: string[] = [];
  const updates = createUpdateSwitch({
    charging: () => cp,
    shutdown: (r) => reasons.push(r),
    logger: { info: (_: unknown, m: string) => info.push(m) } as never,
    timers: clock.timers,
  });
  updates.switchTo(mode);
  return {
    clock,
    reasons,
    info,
    updates,
    cp: () => cp,
    /** An in-process restart: another charge point (POST /v1/restart on simulated hardware). */
    restart: () => (cp = chargePoint(cp.charging)),
  };
}

describe('wait-for-idle', () => {
  test('while a charge runs the controller keeps running and refuses nothing; it ends at the first check after the charge ended, once', () => {
    const s = setUp('wait-for-idle', true);
    for (let i = 0; i < 3600; i++) s.clock.tick(); // an hour of checks (every IDLE_CHECK_MS) with the charge running
    expect(IDLE_CHECK_MS).toBe(1000);
    expect(s.reasons).toEqual([]);
    expect(s.cp().refusals).toEqual([]);
    expect(s.info).toEqual(['an update is installed: the controller switches to it once the running charge has ended']);
    s.updates.switchTo('finish-charge'); // asked again: nothing new
    s.clock.tick();
    expect(s.cp().refusals).toEqual([]);
    s.cp().charging = false;
    s.clock.tick();
    s.clock.tick();
    expect(s.reasons).toEqual(['update installed: switching to it (no charge runs; mode wait-for-idle)']);
    expect(s.clock.armed).toBe(false);
  });
});

describe('finish-charge', () => {
  test('new charges are refused from the request on while the running one goes on; it ends at the first check after that charge', () => {
    const s = setUp('finish-charge', true);
    expect(s.cp().refusals).toEqual(['UPDATE_WAITING']);
    expect(s.info).toEqual([
      'an update is installed: the running charge is finished, no new charge starts, and the controller switches to the update once it has ended',
    ]);
    for (let i = 0; i < 100; i++) s.clock.tick();
    expect(s.reasons).toEqual([]);
    // A controller restarted in process while waiting refuses new charges too, at the next check.
    s.restart();
    s.clock.tick();
    expect(s.cp().refusals).toContain('UPDATE_WAITING');
    s.cp().charging = false;
    s.clock.tick();
    expect(s.reasons).toEqual(['update installed: switching to it (no charge runs; mode finish-charge)']);
    expect(s.clock.armed).toBe(false);
  });
});

describe('without a charge', () => {
  test.each(['wait-for-idle', 'finish-charge'] as const)('%s: it switches at once', (mode) => {
    const s = setUp(mode, false);
    expect(s.reasons).toEqual([`update installed: switching to it (no charge runs; mode ${mode})`]);
    expect(s.info).toEqual([]);
    expect(s.clock.armed).toBe(false);
  });
});
