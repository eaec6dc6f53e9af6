/**
 * The RFID/NFC reader (the PN532) of a hardware backend, on the main thread beside the API it serves over NFC.
 */
import type { DriverLog, ReaderHardware, RfidMode, Timers } from './types.js';
import type { HardwareBackend } from './charge-point-hardware.js';
import { HARDWARE_BACKENDS } from './charge-point-hardware.js';
import type { Pn532PortOptions, SimulatedPn532 } from './pn532/index.js';
import { realTimers } from './timers.js';

/** The PN532's default serial port (Raspberry Pi UART) and baud rate. */
export const DEFAULT_NFC_PORT: Pn532PortOptions = { path: '/dev/ttyS0', baudRate: 115200 };

export interface ReaderHardwareOptions {
  /** Timers of the PN532 reader (its turns, ACK and response timeouts): the controller's clock; real ones by default. */
  timers?: Timers;
  /** Where the driver reports what it recovers from. */
  log?: DriverLog | undefined;
  /** The PN532 on this serial port; rpi: DEFAULT_NFC_PORT when unset; sim: the simulated PN532 when unset. */
  port?: Pn532PortOptions | undefined;
  /** The initial RFID Mode (default `rfid`). */
  rfidMode?: RfidMode;
  /** sim: the simulated PN532's bytes take their wire time at this baud rate on the real-time clock (the benchmark). */
  simWire?: { baudRate: number };
}

/**
 * The RFID/NFC reader of a backend: the PN532 driver on a serial port, or (`sim` without a port) on the byte-level
 * simulated chip, which is returned too (cards and a phone to put in its field).
 */
export async function createReaderHardware(
  backend: HardwareBackend,
  options: ReaderHardwareOptions = {},
): Promise<{ hardware: ReaderHardware; sim?: SimulatedPn532 }> {
  if (backend !== 'sim' && backend !== 'rpi') throw new Error(`unknown hardware backend ${JSON.stringify(backend)}: one of ${HARDWARE_BACKENDS.join(', ')}`);
  const context = { timers: options.timers ?? realTimers, log: options.log, ...(options.rfidMode ? { mode: options.rfidMode } : {}) };
  const { createSimulatedReader, openPn532Reader } = await import('./pn532/index.js');
  if (backend === 'sim' && !options.port) {
    const simulated = await createSimulatedReader({ ...context, ...(options.simWire ? { wire: options.simWire } : {}) });
    return { hardware: { rfid: simulated.reader, nfc: simulated.reader, close: simulated.close }, sim: simulated.sim };
  }
  const reader = await openPn532Reader(options.port ?? DEFAULT_NFC_PORT, context);
  return { hardware: { rfid: reader, nfc: reader, close: () => reader.closePort() } };
}
