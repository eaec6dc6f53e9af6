import { setTimeout as sleep } from 'node:timers/promises';
import { expect, test } from 'vitest';
import { createLoopDelayMonitor } from '../../services/core/loop-delay.js';

/** Holds this thread for `ms` as a long synchronous task would. */
const hold = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

test('the worst event-loop delay records a hold of the thread; restart returns it and counts from zero again', async () => {
  const loop = createLoopDelayMonitor();
  try {
    await sleep(30); // the sampling timer runs
    hold(120);
    await sleep(30); // its next tick comes 120 ms late
    expect(loop.worst()).toBeGreaterThanOrEqual(0.1);
    const before = loop.restart();
    expect(before).toBeGreaterThanOrEqual(0.1);
    expect(loop.worst()).toBe(0);
    expect(loop.window()).toEqual({ p50: 0, p99: 0, max: 0 });
  } finally {
    loop.stop();
  }
});
