import { expect, test, vi } from 'vitest';
import { createSilenceWatch } from '../../services/core/liveness.js';

test('silence over the limit is reported; a message resets it', () => {
  let t = 0;
  const watch = createSilenceWatch(200, 1000, () => t);
  for (t = 200; t <= 1000; t += 200) expect(watch.silence()).toBeUndefined();
  t = 1200;
  expect(watch.silence()).toBe(1200);
  watch.heard();
  t = 1400;
  expect(watch.silence()).toBeUndefined();
});

test('exactly at the limit is not yet silence', () => {
  let t = 0;
  const watch = createSilenceWatch(200, 1000, () => t);
  for (t = 200; t < 1000; t += 200) watch.silence();
  t = 1000;
  expect(watch.silence()).toBeUndefined();
  t = 1001;
  expect(watch.silence()).toBe(1001);
});

test('a watcher held up itself gives no verdict on that turn, and judges on time again on the next', () => {
  let t = 0;
  const watch = createSilenceWatch(200, 1000, () => t);
  t = 200;
  watch.silence();
  // This thread was held up 1.5 s: the other side's messages may be waiting unread behind this very timer.
  t = 1700;
  expect(watch.silence()).toBeUndefined();
  // They are read; the next turn is on time and finds the other side alive.
  watch.heard();
  t = 1900;
  expect(watch.silence()).toBeUndefined();
  // Had nothing come, the next on-time turn reports the silence.
  t = 3000;
  expect(watch.silence()).toBeUndefined(); // late again (1100 ms after the last turn)
  t = 3200;
  expect(watch.silence()).toBe(1500); // heard at 1700
});

test('reset starts afresh', () => {
  let t = 0;
  const watch = createSilenceWatch(200, 1000, () => t);
  t = 5000;
  watch.reset();
  t = 5200;
  expect(watch.silence()).toBeUndefined();
});

test('exactly two intervals late is still on time; more is late', () => {
  let t = 0;
  const watch = createSilenceWatch(200, 300, () => t);
  t = 400; // 2 × 200 after the start: on time, and 400 ms silent
  expect(watch.silence()).toBe(400);
  t = 801; // 401 ms after the last turn: late, no verdict
  expect(watch.silence()).toBeUndefined();
});

test('after reset the next on-time turn judges from the reset, not from before', () => {
  let t = 0;
  const watch = createSilenceWatch(200, 1000, () => t);
  t = 5000;
  watch.reset();
  for (t = 5200; t <= 6000; t += 200) expect(watch.silence()).toBeUndefined();
  t = 6200;
  expect(watch.silence()).toBe(1200);
});

test('without a clock it uses performance.now()', () => {
  vi.useFakeTimers({ toFake: ['performance'] });
  try {
    const watch = createSilenceWatch(200, 1000);
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(200);
      expect(watch.silence()).toBeUndefined();
    }
    vi.advanceTimersByTime(200);
    expect(watch.silence()).toBe(1200);
  } finally {
    vi.useRealTimers();
  }
});
