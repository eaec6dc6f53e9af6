import type { ChargePointHardware } from '../../drivers/types.js';
import { POLL_INTERVAL_MS } from '../../services/core/supervision.js';
import type { ManualClock } from '../clock.js';
import type { Charger, startCharger } from '../charging/scenario.js';

/**
 * A charger (started by `start`: a test file's `useChargers().start`) whose meter reads are timed: the poll loop reads
 * the meter every POLL_INTERVAL_MS from the first read, so `untilBeforePoll(ms)` steps the clock to `ms` before the
 * next poll. `wrap` replaces devices as startCharger's `chargePoint` does.
 */
export async function timedCharger(
  start: (opts?: Parameters<typeof startCharger>[0]) => Promise<Charger>,
  wrap: (hw: ChargePointHardware, clock: ManualClock) => ChargePointHardware = (hw) => hw,
) {
  let clockOf!: ManualClock;
  let firstRead: number | undefined;
  const c = await start({
    chargePoint: (hw, clock) => {
      clockOf = clock;
      const timed = { ...hw, meter: { ...hw.meter, read: () => ((firstRead ??= clock.now()), hw.meter.read()) } };
      return wrap(timed, clock);
    },
  });
  const untilBeforePoll = async (ms: number) => {
    const phase = (clockOf.now() - firstRead!) % POLL_INTERVAL_MS;
    await c.step((2 * POLL_INTERVAL_MS - phase - ms) % POLL_INTERVAL_MS);
  };
  return { c, untilBeforePoll };
}
