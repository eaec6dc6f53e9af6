import { setTimeout as sleep } from 'node:timers/promises';
import type { EnergyMeter, MeterReading } from '../types.js';
import type { ModbusLink } from './grid-meter.js';
import { ModbusError, parseReadInputRegisters, READ_INPUT_REGISTERS, readInputRegistersRequest, responseLength } from './modbus.js';

/** SDM630 input registers read by the driver (each value an IEEE-754 float, big-endian, in two registers). */
export const SDM630_REGISTERS = {
  /** Phase 1, 2, 3 voltage to neutral in V (0x0000, 0x0002, 0x0004). */
  phaseVoltages: 0x0000,
  /** Phase 1, 2, 3 current in A (0x0006, 0x0008, 0x000A). */
  phaseCurrents: 0x0006,
  /** Total system power in W. */
  totalPower: 0x0034,
  /** Total import active energy in kWh. */
  importEnergy: 0x0156,
} as const;

/** The part of a `serialport` SerialPort the driver uses (SerialPortMock has it too). */
export interface SerialPortLike {
  readonly isOpen: boolean;
  open(callback: (err: Error | null) => void): void;
  write(data: Buffer, callback: (err: Error | null | undefined) => void): boolean;
  close(callback: (err: Error | null) => void): void;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer) => void): unknown;
  off(event: 'error', listener: (err: Error) => void): unknown;
}

export interface Sdm630Options {
  /** Modbus device address, 1..247 (default 1). */
  address?: number;
  /** 3 (default): three phase currents; 1: phase 1 only. */
  phases?: 1 | 3;
  /** A request not answered completely within this time fails (default 500 ms). */
  timeoutMs?: number;
  /** Baud rate of the bus (default 9600), for the silent interval of 3.5 characters between frames. */
  baudRate?: number;
}

/**
 * The charging meter with its bus: `bus` exchanges another device's "read input registers" request (the grid meter)
 * on the same port, queued with the meter's own requests (one outstanding at a time), waiting at most
 * BUS_EXCHANGE_TIMEOUT_MS for the answer, so it holds the bus for less than a meter request does.
 */
export type Sdm630Meter = EnergyMeter & { bus: ModbusLink; close(): Promise<void> };

export const DEFAULT_METER_TIMEOUT_MS = 500;
/**
 * Another device's exchange on the bus waits at most this long (ms): an SDM630 answers within about 100 ms at 9600
 * baud, and a silent device must not hold the charging meter's next request for long.
 */
export const BUS_EXCHANGE_TIMEOUT_MS = 200;

type Pending = { address: number; finish: (frame: Buffer) => Buffer; resolve: (data: Buffer) => void; reject: (err: Error) => void; timer: NodeJS.Timeout };

/**
 * Eastron SDM630 over Modbus RTU. A `read()` sends three "read input registers" requests (phase currents, total
 * power, import energy), one at a time: reads are queued, so one request is outstanding on the bus at any time. Each
 * request fails on timeout, CRC error, exception response or a malformed answer; `read()` then rejects. The port is
 * opened at the first read (and again at a later read if opening failed), so a missing adapter fails reads, not the
 * start.
 */
export function createSdm630Meter(port: SerialPortLike, options: Sdm630Options = {}): Sdm630Meter {
  const address = options.address ?? 1;
  const phases = options.phases ?? 3;
  const timeoutMs = options.timeoutMs ?? DEFAULT_METER_TIMEOUT_MS;
  const gapMs = Math.max(1.75, (3.5 * 11 * 1000) / (options.baudRate ?? 9600));
  readInputRegistersRequest(address, 0, 1); // validates the address
  let rx = Buffer.alloc(0);
  let pending: Pending | undefined;
  let lastFrameEnd = 0;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  const finish = (err: Error | undefined, data?: Buffer) => {
    const p = pending;
    if (!p) return;
    pending = undefined;
    clearTimeout(p.timer);
    rx = Buffer.alloc(0);
    lastFrameEnd = performance.now();
    if (err) p.reject(err);
    else p.resolve(data!);
  };

  const onData = (chunk: Buffer) => {
    if (!pending) return; // nothing asked: a late or stray answer
    rx = Buffer.concat([rx, chunk]);
    try {
      const length = responseLength(rx, pending.address, READ_INPUT_REGISTERS);
      if (length === undefined || rx.length < length) return;
      finish(undefined, pending.finish(rx.subarray(0, length)));
    } catch (err) {
      finish(err as Error);
    }
  };
  const onError = (err: Error) => finish(new ModbusError(`meter serial port: ${err.message}`, { cause: err }));
  port.on('data', onData);
  port.on('error', onError);

  const ensureOpen = () =>
    port.isOpen
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) =>
          port.open((err) => (err ? reject(new ModbusError(`meter serial port cannot be opened: ${err.message}`, { cause: err })) : resolve())),
        );

  const register = (request: Buffer) => request.readUInt16BE(2).toString(16).padStart(4, '0');
  /** One request on the bus; `finishFrame` checks the answer frame. */
  const exchange = async (request: Buffer, to: number, timeout: number, finishFrame: (frame: Buffer) => Buffer): Promise<Buffer> => {
    const wait = lastFrameEnd + gapMs - performance.now();
    if (wait > 0) await sleep(wait);
    return new Promise<Buffer>((resolve, reject) => {
      rx = Buffer.alloc(0);
      const timer = setTimeout(
        () =>
          finish(new ModbusError(`${to === address ? 'meter' : `Modbus device ${to}`} did not answer within ${timeout} ms (register 0x${register(request)})`)),
        timeout,
      );
      pending = { address: to, finish: finishFrame, resolve, reject, timer };
      port.write(request, (err) => {
        if (err) finish(new ModbusError(`meter serial port write failed: ${err.message}`, { cause: err }));
      });
    });
  };
  const transact = (start: number, count: number): Promise<Buffer> =>
    exchange(readInputRegistersRequest(address, start, count), address, timeoutMs, (frame) => parseReadInputRegisters(frame, address, count));

  /** Work on the bus, after every earlier request. */
  const queued = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => {});
    return result;
  };

  const floats = (data: Buffer) => Array.from({ length: data.length / 4 }, (_, i) => data.readFloatBE(i * 4));

  const readAll = async (): Promise<MeterReading> => {
    if (closed) throw new ModbusError('meter driver closed');
    await ensureOpen();
    // Voltages and currents are adjacent (0x0000–0x000B): one request for both.
    const block = floats(await transact(SDM630_REGISTERS.phaseVoltages, 12));
    const voltagesV = block.slice(0, phases);
    const currentsA = block.slice(3, 3 + phases);
    const [powerW] = floats(await transact(SDM630_REGISTERS.totalPower, 2));
    const [energyKwh] = floats(await transact(SDM630_REGISTERS.importEnergy, 2));
    return { energyWh: energyKwh! * 1000, powerW: powerW!, currentsA, voltagesV };
  };

  return {
    read: () => queued(readAll),
    bus: {
      exchange(request, to) {
        return queued(async () => {
          if (closed) throw new ModbusError('meter driver closed');
          await ensureOpen();
          // The raw answer frame: the other device's driver checks it (CRC, length, exception).
          return exchange(request, to, BUS_EXCHANGE_TIMEOUT_MS, (frame) => Buffer.from(frame));
        });
      },
    },
    async close() {
      closed = true;
      finish(new ModbusError('meter driver closed'));
      port.off('data', onData);
      port.off('error', onError);
      if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
    },
  };
}

export interface OpenSdm630Options extends Sdm630Options {
  /** Serial device of the RS-485 adapter, e.g. /dev/ttyUSB0 or /dev/serial0. */
  path: string;
  baudRate?: number;
}

/** An SDM630 on a serial port (8N1), opened at the first read. Loads `serialport` only when called. */
export async function openSdm630Meter(options: OpenSdm630Options): Promise<Sdm630Meter> {
  const { default: serialport } = await import('serialport');
  const port = new serialport.SerialPort({ path: options.path, baudRate: options.baudRate ?? 9600, dataBits: 8, parity: 'none', stopBits: 1, autoOpen: false });
  return createSdm630Meter(port, options);
}
