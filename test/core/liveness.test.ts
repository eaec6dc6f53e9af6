import { expect, test } from 'vitest';
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
