/**
 * The PN532 NFC/RFID reader: on a serial port (HARDWARE=rpi) or on the byte-level simulator (HARDWARE=sim).
 * `serialport` is loaded only when called.
 */
import type { DriverLog, RfidMode, Timers } from '../types.js';
import { createPn532Reader, type Pn532Reader } from './reader.js';
import { createSimulatedPn532, type SimulatedPn532 } from './sim.js';

export { createPn532Reader, type Pn532Reader } from './reader.js';
export type { SimulatedPn532, SimulatedPhone } from './sim.js';

export interface Pn532PortOptions {
  /** Serial device of the PN532's HSU, e.g. /dev/ttyS0 or /dev/serial0. */
  path: string;
  baudRate: number;
}

export interface ReaderContext {
  timers: Timers;
  log?: DriverLog | undefined;
  mode?: RfidMode;
}

/** The reader on a real serial port, started. A port that cannot be opened is retried by the reader's recovery. */
export async function openPn532Reader(port: Pn532PortOptions, context: ReaderContext): Promise<Pn532Reader & { closePort(): Promise<void> }> {
  const { default: serialport } = await import('serialport');
  const serial = new serialport.SerialPort({ path: port.path, baudRate: port.baudRate, dataBits: 8, parity: 'none', stopBits: 1, autoOpen: false });
  serial.on('error', (err) => context.log?.warn({ err: err.message }, 'PN532 serial port error'));
  const reader = createPn532Reader(serial, {
    timers: context.timers,
    ...(context.log ? { log: context.log } : {}),
    ...(context.mode ? { mode: context.mode } : {}),
    prepare: () =>
      serial.isOpen
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) =>
            serial.open((err) => (err ? reject(new Error(`PN532 serial port ${port.path} cannot be opened: ${err.message}`)) : resolve())),
          ),
  });
  reader.start();
  return Object.assign(reader, {
    async closePort() {
      await reader.close();
      if (serial.isOpen) await new Promise<void>((resolve) => serial.close(() => resolve()));
    },
  });
}

/** The reader on a simulated PN532 (cards and a phone in its field), started. */
export async function createSimulatedReader(
  context: ReaderContext & { wire?: { baudRate: number } },
): Promise<{ reader: Pn532Reader; sim: SimulatedPn532; close(): Promise<void> }> {
  const sim = await createSimulatedPn532({ timers: context.timers, ...(context.wire ? { wire: context.wire } : {}) });
  const reader = createPn532Reader(sim.port, {
    timers: context.timers,
    ...(context.log ? { log: context.log } : {}),
    ...(context.mode ? { mode: context.mode } : {}),
  });
  reader.start();
  return {
    reader,
    sim,
    async close() {
      await reader.close();
      await sim.close();
    },
  };
}
