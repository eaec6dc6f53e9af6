import { describe, expect, test } from 'vitest';
import { createUpdateSwitch, IDLE_CHECK_MS } from '../../bin/update-switch.js';

/** Switching to an installed update waits for idle: a running charge is never cut by an update. */

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

describe('switching to an installed update', () => {
  test('while a charge runs the controller keeps running; it ends at the first check after the charge ended, once', () => {
    const clock = manualInterval();
    let charging = true;
    const reasons: string[] = [];
    const info: string[] = [];
    const updates = createUpdateSwitch(
      () => charging,
      (r) => reasons.push(r),
      { info: (m: string) => info.push(m) } as never,
      clock.timers,
    );
    updates.switchWhenIdle();
    for (let i = 0; i < 3600; i++) clock.tick(); // an hour of checks (every IDLE_CHECK_MS) with the charge running
    expect(IDLE_CHECK_MS).toBe(1000);
    expect(reasons).toEqual([]);
    expect(info).toEqual(['an update is installed: the controller switches to it once the running charge has ended']);
    updates.switchWhenIdle(); // asked again: nothing new
    charging = false;
    clock.tick();
    clock.tick();
    expect(reasons).toEqual(['update installed: switching to it (no charge runs)']);
    expect(clock.armed).toBe(false);
  });

  test('without a charge it switches at once', () => {
    const clock = manualInterval();
    const reasons: string[] = [];
    createUpdateSwitch(
      () => false,
      (r) => reasons.push(r),
      { info: () => {} } as never,
      clock.timers,
    ).switchWhenIdle();
    expect(reasons).toHaveLength(1);
  });
});
