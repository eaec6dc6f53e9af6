import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The window over which a thread's event-loop delay is reported. */
export const LOOP_WINDOW_MS = 10_000;
/** The sampling timer's interval. */
const RESOLUTION_MS = 10;

/**
 * The event-loop delay of the calling thread (main or charge-point core, measured the same way), in seconds:
 * p50, p99 and max over the last window, and the worst since start.
 */
export function createLoopDelayMonitor(windowMs = LOOP_WINDOW_MS) {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let last = { p50: 0, p99: 0, max: 0 };
  let worst = 0;
  let windowStart = performance.now();
  // The histogram holds the time between its timer's ticks: the delay is what exceeds the timer's interval.
  const delay = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS) / 1000;
  const sample = () => {
    if (histogram.count > 0) {
      last = { p50: delay(histogram.percentile(50)), p99: delay(histogram.percentile(99)), max: delay(histogram.max) };
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
    /**
     * Starts the worst and the window again, returning the worst until now: the controller calls it once it serves,
     * so the worst since start is the longest hold while serving (a request, a commit, a timer), and module loading
     * and migrations before it are reported apart (logged with the "listening on" line).
     */
    restart(): number {
      sample();
      const before = worst;
      histogram.reset();
      windowStart = performance.now();
      last = { p50: 0, p99: 0, max: 0 };
      worst = 0;
      return before;
    },
    stop(): void {
      histogram.disable();
    },
  };
}

export type LoopDelayMonitor = ReturnType<typeof createLoopDelayMonitor>;
