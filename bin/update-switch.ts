import type { Logger } from '../services/logger.js';

/** How often a controller waiting to switch to an installed update looks whether the charge has ended. */
export const IDLE_CHECK_MS = 1000;

let waiting: NodeJS.Timeout | undefined;

/**
 * An update is installed and waits for its trial (docs/field-service.md#a-charge-running): the controller ends
 * (gracefully, exit 0; the launcher then starts the update) at the first moment no charge runs, so an update never
 * cuts a charge. Asking again while it waits changes nothing.
 */
export function switchWhenIdle(charging: () => boolean, shutdown: (reason: string) => void, logger: Logger): void {
  if (waiting) return;
  const check = () => {
    if (charging()) return;
    clearInterval(waiting);
    shutdown('update installed: switching to it (no charge runs)');
  };
  if (charging()) logger.info('an update is installed: the controller switches to it once the running charge has ended');
  waiting = setInterval(check, IDLE_CHECK_MS);
  check();
}
