import type { ChargingService } from '../services/charging.js';
import { UPDATE_WAITING, type SwitchMode } from '../services/field-service/update-settings.js';
import type { Logger } from '../services/logger.js';

/** How often a controller waiting to switch to an installed update looks whether the charge has ended. */
export const IDLE_CHECK_MS = 1000;

export interface Interval {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(id: unknown): void;
}
const realInterval: Interval = { setInterval: (fn, ms) => setInterval(fn, ms), clearInterval: (id) => clearInterval(id as NodeJS.Timeout) };

export interface UpdateSwitchDeps {
  /** The running controller's charge point (another one after an in-process restart). */
  charging: () => Pick<ChargingService, 'coreState' | 'refuseNewCharges'>;
  /** Ends the controller gracefully (exit 0): the launcher then starts the update on trial. */
  shutdown: (reason: string) => void;
  logger: Pick<Logger, 'info'>;
  timers?: Interval;
}

/**
 * Switching to an installed update (docs/field-service.md#a-charge-running) never cuts a charge: the controller
 * ends at the first check that finds no transaction. In `wait-for-idle` new charges may start meanwhile; in
 * `finish-charge` the charge point refuses new ones from the request on (services/charging.ts refuseNewCharges: the
 * running transaction goes on, then the connector is unavailable as with ChargingEnabled off), so the switch comes
 * as soon as the running charge has ended. The core's safety deadlines are untouched: this only reads its state and
 * sends it a setting. Asking again while it waits changes nothing.
 */
export function createUpdateSwitch({ charging, shutdown, logger, timers = realInterval }: UpdateSwitchDeps) {
  let waiting: unknown;
  let mode: SwitchMode | undefined;
  let done = false;
  const check = () => {
    if (done) return;
    // Every check: a controller restarted in process (POST /v1/restart on simulated hardware) refuses too.
    if (mode === 'finish-charge') charging().refuseNewCharges(UPDATE_WAITING);
    if (charging().coreState()?.transaction) return;
    done = true;
    timers.clearInterval(waiting);
    shutdown(`update installed: switching to it (no charge runs; mode ${mode})`);
  };
  return {
    /** An update is installed: switch to it once no charge runs, in `next` mode. */
    switchTo(next: SwitchMode): void {
      if (mode !== undefined || done) return;
      mode = next;
      if (charging().coreState()?.transaction) {
        logger.info(
          { mode },
          mode === 'finish-charge'
            ? 'an update is installed: the running charge is finished, no new charge starts, and the controller switches to the update once it has ended'
            : 'an update is installed: the controller switches to it once the running charge has ended',
        );
      }
      waiting = timers.setInterval(check, IDLE_CHECK_MS);
      check();
    },
  };
}

export type UpdateSwitch = ReturnType<typeof createUpdateSwitch>;
