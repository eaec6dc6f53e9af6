import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The window over which a thread's event-loop delay is reported. */
export const LOOP_WINDOW_MS = 10_000;

/**
 * The event-loop delay of the calling thread (main or charge-point core, measured the same way), in seconds:
 * p50, p99 and max over the last window, and the worst since start.
 */
export function createLoopDelayMonitor(windowMs = LOOP_WINDOW_MS) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let last = { p50: 0, p99: 0, max: 0 };
  let worst = 0;
  let windowStart = performance.now();
  const sample = () => {
    if (histogram.count > 0) {
      last = { p50: histogram.percentile(50) / 1e9, p99: histogram.percentile(99) / 1e9, max: histogram.max / 1e9 };
      worst = Math.max(worst, last.max);
    }
  };
  return {
    /** The figures of the current window (a new window starts once it is LOOP_WINDOW_MS old). */
    window(): { p50: number; p99: number; max: number } {
      sample();
      if (performance.now() - windowStart >= windowMs) {
        histogram.reset();
        windowStart = performance.now();
      }
      return last;
    },
    worst(): number {
      sample();
      return worst;
    },
    stop(): void {
      histogram.disable();
    },
  };
}

export type LoopDelayMonitor = ReturnType<typeof createLoopDelayMonitor>;
