import type { Logger } from '../services/logger.js';

/** How often a controller waiting to switch to an installed update looks whether the charge has ended. */
export const IDLE_CHECK_MS = 1000;

export interface Interval {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(id: unknown): void;
}
const realInterval: Interval = { setInterval: (fn, ms) => setInterval(fn, ms), clearInterval: (id) => clearInterval(id as NodeJS.Timeout) };

/**
 * Switching to an installed update waits for idle (docs/field-service.md#a-charge-running): the controller ends
 * (gracefully, exit 0; the launcher then starts the update on trial) at the first moment no charge runs, so an
 * update never cuts a charge. Asking again while it waits changes nothing.
 */
export function createUpdateSwitch(charging: () => boolean, shutdown: (reason: string) => void, logger: Pick<Logger, 'info'>, timers = realInterval) {
  let waiting: unknown;
  let done = false;
  const check = () => {
    if (done || charging()) return;
    done = true;
    timers.clearInterval(waiting);
    shutdown('update installed: switching to it (no charge runs)');
  };
  return {
    /** An update is installed: switch to it once no charge runs. */
    switchWhenIdle(): void {
      if (waiting !== undefined || done) return;
      if (charging()) logger.info('an update is installed: the controller switches to it once the running charge has ended');
      waiting = timers.setInterval(check, IDLE_CHECK_MS);
      check();
    },
  };
}
