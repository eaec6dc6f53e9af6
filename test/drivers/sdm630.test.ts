import serialport from 'serialport';
import { afterEach, describe, expect, test } from 'vitest';
import { exceptionResponse, readInputRegistersRequest, readInputRegistersResponse } from '../../drivers/meter/modbus.js';
import { createSdm630Meter, SDM630_REGISTERS } from '../../drivers/meter/sdm630.js';

const { SerialPortMock } = serialport;
const MockBinding = SerialPortMock.binding;

type Behaviour = 'answer' | 'split' | 'silent' | 'crc-error' | 'exception' | 'wrong-device' | { lateMs: number };

/** An SDM630 on the mock serial line: answers "read input registers" from its float registers. */
function emulateMeter(port: InstanceType<typeof SerialPortMock>, address: number, values: Record<number, number>) {
  const requests: Buffer[] = [];
  const behaviour: { default: Behaviour; byRegister: Map<number, Behaviour> } = { default: 'answer', byRegister: new Map() };
  let outstanding = 0;
  let maxOutstanding = 0;
  port.on('open', () => {
    const binding = port.port as unknown as { write(b: Buffer): Promise<void>; emitData(b: Buffer): void };
    const write = binding.write.bind(binding);
    binding.write = async (buf: Buffer) => {
      await write(buf);
      const request = Buffer.from(buf);
      requests.push(request);
      outstanding += 1;
      maxOutstanding = Math.max(maxOutstanding, outstanding);
      const start = request.readUInt16BE(2);
      const count = request.readUInt16BE(4);
      const data = Buffer.alloc(count * 2);
      for (let i = 0; i < count; i += 2) data.writeFloatBE(values[start + i] ?? 0, i * 2);
      let answer = readInputRegistersResponse(address, data);
      const mode = behaviour.byRegister.get(start) ?? behaviour.default;
      const send = (bytes: Buffer) => {
        outstanding = 0;
        binding.emitData(bytes);
      };
      if (mode === 'silent') {
        setTimeout(() => (outstanding = 0), 60);
        return;
      }
      if (mode === 'crc-error') answer.writeUInt8(answer.readUInt8(3) ^ 0x10, 3);
      if (mode === 'exception') answer = exceptionResponse(address, 4, 2);
      if (mode === 'wrong-device') answer = readInputRegistersResponse(address + 1, data);
      if (typeof mode === 'object') {
        setTimeout(() => send(answer), mode.lateMs);
      } else if (mode === 'split') {
        setImmediate(() => {
          send(answer.subarray(0, 2));
          setTimeout(() => binding.emitData(answer.subarray(2)), 5);
        });
      } else {
        setImmediate(() => send(answer));
      }
    };
  });
  return { requests, behaviour, maxOutstanding: () => maxOutstanding };
}

const PATH = '/dev/ttyMETER';
const VALUES = {
  [SDM630_REGISTERS.phaseVoltages]: 231.5,
  [SDM630_REGISTERS.phaseVoltages + 2]: 229.5,
  [SDM630_REGISTERS.phaseVoltages + 4]: 230,
  [SDM630_REGISTERS.phaseCurrents]: 16.5,
  [SDM630_REGISTERS.phaseCurrents + 2]: 16.25,
  [SDM630_REGISTERS.phaseCurrents + 4]: 0,
  [SDM630_REGISTERS.totalPower]: 7500.5,
  [SDM630_REGISTERS.importEnergy]: 1234.5,
};

function setup(opts: { address?: number; phases?: 1 | 3; createPort?: boolean } = {}) {
  const address = opts.address ?? 1;
  if (opts.createPort !== false) MockBinding.createPort(PATH, { echo: false, record: true });
  const port = new SerialPortMock({ path: PATH, baudRate: 9600, autoOpen: false });
  const meter = emulateMeter(port, address, VALUES);
  const driver = createSdm630Meter(port, { address, phases: opts.phases ?? 3, timeoutMs: 50 });
  return { port, meter, driver };
}

afterEach(() => {
  MockBinding.reset();
});

describe('SDM630 over Modbus RTU (serialport MockBinding)', () => {
  test('reads currents, power and import energy (kWh → Wh) with three requests', async () => {
    const { port, meter, driver } = setup({ address: 3 });
    expect(await driver.read()).toEqual({ energyWh: 1234500, powerW: 7500.5, currentsA: [16.5, 16.25, 0], voltagesV: [231.5, 229.5, 230] });
    expect(port.isOpen).toBe(true); // opened by the first read
    expect(meter.requests).toEqual([
      readInputRegistersRequest(3, 0x0000, 12),
      readInputRegistersRequest(3, 0x0034, 2),
      readInputRegistersRequest(3, 0x0156, 2),
    ]);
    await driver.close();
    expect(port.isOpen).toBe(false);
  });

  test('single phase reads only the phase 1 current', async () => {
    const { meter, driver } = setup({ phases: 1 });
    expect(await driver.read()).toEqual({ energyWh: 1234500, powerW: 7500.5, currentsA: [16.5], voltagesV: [231.5] });
    expect(meter.requests[0]).toEqual(readInputRegistersRequest(1, 0x0000, 12));
    await driver.close();
  });

  test('an answer arriving in pieces is reassembled', async () => {
    const { meter, driver } = setup();
    meter.behaviour.default = 'split';
    expect(await driver.read()).toEqual({ energyWh: 1234500, powerW: 7500.5, currentsA: [16.5, 16.25, 0], voltagesV: [231.5, 229.5, 230] });
    await driver.close();
  });

  test('concurrent reads are queued: one request outstanding at a time', async () => {
    const { meter, driver } = setup();
    meter.behaviour.default = 'split';
    const results = await Promise.all([driver.read(), driver.read(), driver.read()]);
    expect(results.map((r) => r.energyWh)).toEqual([1234500, 1234500, 1234500]);
    expect(meter.requests).toHaveLength(9);
    expect(meter.maxOutstanding()).toBe(1);
    await driver.close();
  });

  test('a CRC error rejects the read; the next read works', async () => {
    const { meter, driver } = setup();
    meter.behaviour.byRegister.set(SDM630_REGISTERS.totalPower, 'crc-error');
    await expect(driver.read()).rejects.toThrow(/CRC error/);
    meter.behaviour.byRegister.clear();
    expect((await driver.read()).powerW).toBe(7500.5);
    await driver.close();
  });

  test('no answer: the read rejects after the timeout; the next read works', async () => {
    const { meter, driver } = setup();
    meter.behaviour.byRegister.set(SDM630_REGISTERS.importEnergy, 'silent');
    const started = performance.now();
    await expect(driver.read()).rejects.toThrow(/did not answer within 50 ms \(register 0x0156\)/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    meter.behaviour.byRegister.clear();
    expect((await driver.read()).energyWh).toBe(1234500);
    await driver.close();
  });

  test('a late answer after the timeout is ignored', async () => {
    const { meter, driver } = setup();
    meter.behaviour.default = { lateMs: 80 };
    await expect(driver.read()).rejects.toThrow(/did not answer/);
    await new Promise((resolve) => setTimeout(resolve, 60)); // the late answer arrives while nothing is asked
    meter.behaviour.default = 'answer';
    expect(await driver.read()).toEqual({ energyWh: 1234500, powerW: 7500.5, currentsA: [16.5, 16.25, 0], voltagesV: [231.5, 229.5, 230] });
    await driver.close();
  });

  test('an exception response and an answer from another device reject', async () => {
    const { meter, driver } = setup();
    meter.behaviour.default = 'exception';
    await expect(driver.read()).rejects.toThrow(/Modbus exception 2 \(illegal data address\)/);
    meter.behaviour.default = 'wrong-device';
    await expect(driver.read()).rejects.toThrow(/device 2, expected 1/);
    await driver.close();
  });

  test('a port that cannot be opened fails the read, and is opened at a later read', async () => {
    const { port, driver } = setup({ createPort: false });
    await expect(driver.read()).rejects.toThrow(/cannot be opened/);
    MockBinding.createPort(PATH, { echo: false, record: true });
    expect((await driver.read()).currentsA).toEqual([16.5, 16.25, 0]);
    expect(port.isOpen).toBe(true);
    await driver.close();
  });

  test('close() rejects the pending read and later reads', async () => {
    const { meter, driver } = setup();
    meter.behaviour.default = 'silent';
    const pending = driver.read();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await driver.close();
    await expect(pending).rejects.toThrow(/closed/);
    await expect(driver.read()).rejects.toThrow(/closed/);
  });

  test('an invalid address is refused at creation', () => {
    MockBinding.createPort(PATH);
    const port = new SerialPortMock({ path: PATH, baudRate: 9600, autoOpen: false });
    expect(() => createSdm630Meter(port, { address: 0 })).toThrow(RangeError);
  });
});
