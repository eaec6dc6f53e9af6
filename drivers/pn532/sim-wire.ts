import { createRequire } from 'node:module';
import { SerialPortStream } from '@serialport/stream';

/**
 * The simulated PN532's wires: its UART, a @serialport/binding-mock port (serialport's SerialPortMock) the driver
 * opens like a real one, and the timing of bytes on the UART and of APDUs over the air. Bytes are delivered at once
 * by default (tests and HARDWARE=sim); with `wire` they take their UART time at the baud rate and their ISO 14443 air
 * time at 106 kbps, on the real-time clock (the benchmark).
 */

// @serialport/binding-mock's package exports hide its type declarations from NodeNext resolution.
const { MockBinding } = createRequire(import.meta.url)('@serialport/binding-mock') as {
  MockBinding: ConstructorParameters<typeof SerialPortStream>[0]['binding'] & { createPort(path: string, options: { echo: boolean; record: boolean }): void };
};

// serialport's SerialPortMock, built from its two parts: importing `serialport` itself would load the native
// bindings too (about 8 MB of resident memory in every simulated controller).
const SerialPortMock = {
  binding: MockBinding,
  open: (path: string, baudRate: number) => new SerialPortStream({ binding: MockBinding, path, baudRate, autoOpen: false }),
};
export type SimulatedPort = SerialPortStream;
/** The opened @serialport/binding-mock port behind SerialPortMock. */
export interface MockPortBinding {
  readonly isOpen: boolean;
  emitData(data: Buffer): void;
  write(buffer: Buffer): Promise<void>;
}

/** UART time of `bytes` (8N1: 10 bits a byte) in ms. */
export function uartMs(bytes: number, baudRate: number): number {
  return (bytes * 10 * 1000) / baudRate;
}
/** ISO 14443-4 air time of an APDU of `bytes` at 106 kbps: I-block PCB + data + CRC_A, 9 bits a byte, SOF/EOF. */
export function airMs(bytes: number): number {
  return ((bytes + 3) * 9 + 2) / 106;
}

export interface WireStats {
  /** Bytes on the UART, both directions. */
  uartBytes: number;
  /** APDUs (commands and responses) over the air, and their bytes. */
  airFrames: number;
  airBytes: number;
}

/** The time `stats` take on the wires at `baudRate`: the floor of any implementation. */
export function wireFloorMs(stats: WireStats, baudRate: number): number {
  return uartMs(stats.uartBytes, baudRate) + (stats.airBytes * 9 + stats.airFrames * (3 * 9 + 2)) / 106;
}

/** Resolves at performance.now() ≥ at: a timer to just before, then immediates (sub-millisecond precision). */
function atTime(at: number, fn: () => void): void {
  const remaining = at - performance.now();
  if (remaining > 2) setTimeout(() => atTime(at, fn), remaining - 1.5);
  else if (remaining > 0) setImmediate(() => atTime(at, fn));
  else fn();
}

let portCounter = 0;

/** A new simulated port, opened: the host side for the driver, and the chip's side of the mock binding. */
export async function openSimulatedPort(baudRate: number): Promise<{ port: SimulatedPort; binding: MockPortBinding }> {
  const path = `/dev/pn532-sim-${process.pid}-${++portCounter}`;
  SerialPortMock.binding.createPort(path, { echo: false, record: false });
  const port = SerialPortMock.open(path, baudRate);
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  return { port, binding: port.port as unknown as MockPortBinding };
}

/**
 * Serialised delivery on the wires: each direction's bytes leave after the previous ones (instant without `wire`),
 * counted in `stats`.
 */
export function createWireDelivery(binding: MockPortBinding, stats: WireStats, wire: { baudRate: number } | undefined) {
  let lineFreeAt = 0;
  const onWire = (ms: number, fn: () => void) => {
    if (!wire) return fn();
    const start = Math.max(performance.now(), lineFreeAt);
    lineFreeAt = start + ms;
    atTime(lineFreeAt, fn);
  };
  const toHost = (bytes: Uint8Array) => {
    stats.uartBytes += bytes.length;
    onWire(wire ? uartMs(bytes.length, wire.baudRate) : 0, () => {
      if (binding.isOpen) binding.emitData(Buffer.from(bytes));
    });
  };
  const overAir = (bytes: number, fn: () => void) => {
    stats.airFrames++;
    stats.airBytes += bytes;
    onWire(wire ? airMs(bytes) : 0, fn);
  };
  /** RF time outside APDUs (activations): taken in wire mode, not counted in the APDU stats. */
  const rf = (ms: number, fn: () => void) => onWire(wire ? ms : 0, fn);
  return { onWire, toHost, overAir, rf };
}
