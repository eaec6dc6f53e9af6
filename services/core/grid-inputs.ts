import { createSdm630GridMeter } from '../../drivers/meter/grid-meter.js';
import type { ChargePointHardware } from '../../drivers/types.js';
import type { CoreLog } from './log.js';
import type { GridInputsConfig, GridReading } from './protocol.js';
import { POLL_INTERVAL_MS } from './supervision.js';

/** The grid meter is read about this often: after each periodic read of the charging meter, one read at a time. */
export const GRID_METER_INTERVAL_MS = POLL_INTERVAL_MS;

/**
 * The energy inputs wired to the core's hardware (docs/energy.md, Inputs): the grid meter, an SDM630 on the charging
 * meter's RS-485 bus, and the ripple-control receiver's contact on a GPIO. The main thread names what to read
 * (`configure`: the settings GridPowerSource, GridMeterAddress, GridOperatorSource) and takes the readings as it takes
 * its other inputs (services/energy/inputs.ts). The grid meter is asked right after each of the charging meter's
 * periodic reads (`afterMeterRead`), one request at a time and never awaited by the poll: the bus is idle then until
 * the next poll a second later, and the bus gives another device's request a short timeout
 * (drivers/meter/sdm630.ts, BUS_EXCHANGE_TIMEOUT_MS), so a transaction's meter read waits for at most that. No
 * safety reaction uses the bus. The driver holds no rule: what the readings mean is the main thread's.
 */
export function createGridInputs(deps: {
  hardware: Pick<ChargePointHardware, 'gridMeterBus' | 'rippleContact'>;
  log: Pick<CoreLog, 'warn'>;
  /** A reading for the main thread (posted, never awaited). */
  post(reading: GridReading): void;
  /** Work in flight, for `settled()` and the graceful stop. */
  track<T>(p: Promise<T>): Promise<T>;
}) {
  const { hardware, log, post, track } = deps;
  let address: number | null = null;
  let contact = false;
  let reading = false;
  let answering = true;
  let stopped = false;
  let unsubscribe: (() => void) | undefined;
  const meter = hardware.gridMeterBus && createSdm630GridMeter(hardware.gridMeterBus, () => address ?? 1);

  return {
    /** What the main thread's settings ask to read; the contact's state is sent at once and on every change. */
    configure(config: GridInputsConfig): void {
      if (config.meterAddress !== null && !meter && address === null) log.warn({}, 'the grid meter is to be read, but this hardware has no RS-485 bus for it');
      if (config.meterAddress !== address) answering = true;
      address = config.meterAddress;
      if (config.rippleContact === contact) return;
      contact = config.rippleContact;
      unsubscribe?.();
      unsubscribe = undefined;
      if (!contact) return;
      const input = hardware.rippleContact;
      if (!input) {
        log.warn({}, 'the ripple-control contact is to be read, but none is wired (GPIO_RIPPLE_CONTACT): the failsafe limit applies');
        return;
      }
      unsubscribe = input.onChange((closed) => post({ type: 'rippleContact', closed }));
      post({ type: 'rippleContact', closed: input.closed() });
    },
    /** After each periodic read of the charging meter: the grid meter's turn on the bus. */
    afterMeterRead(): void {
      if (stopped || address === null || !meter || reading) return;
      reading = true;
      const asked = address;
      void track(
        meter
          .readPowerW()
          .then((powerW) => {
            if (!powerW.every(Number.isFinite)) throw new Error('the grid meter answered a value that is not a number');
            if (asked !== address) return;
            answering = true;
            post({ type: 'gridPower', powerW });
          })
          .catch((err: unknown) => {
            // Once per silence: the main thread keeps the last reading, which ages (its staleness rules).
            if (answering && asked === address) post({ type: 'gridPower', powerW: null, error: String(err).slice(0, 500) });
            answering = false;
          })
          .finally(() => (reading = false)),
      );
    },
    /** The configured grid meter address (the simulated twin answers there). */
    meterAddress: () => address,
    stop(): void {
      stopped = true;
      unsubscribe?.();
      unsubscribe = undefined;
    },
  };
}

export type GridInputs = ReturnType<typeof createGridInputs>;
