import { describe, expect, test } from 'vitest';
import {
  crc16modbus,
  exceptionResponse,
  ModbusError,
  ModbusException,
  parseReadInputRegisters,
  readInputRegistersRequest,
  readInputRegistersResponse,
  responseLength,
  withCrc,
} from '../../drivers/meter/modbus.js';

const hex = (s: string) => Buffer.from(s.replace(/\s/g, ''), 'hex');

describe('Modbus RTU framing', () => {
  test('CRC-16/MODBUS check value and known frames', () => {
    expect(crc16modbus(Buffer.from('123456789'))).toBe(0x4b37);
    expect(crc16modbus(Buffer.alloc(0))).toBe(0xffff);
    // Read holding registers 0x006B x3 from device 0x11 (the Modbus specification's example): CRC 0x8776, sent 76 87.
    expect(withCrc(hex('11 03 00 6B 00 03'))).toEqual(hex('11 03 00 6B 00 03 76 87'));
  });

  test('read input registers request', () => {
    expect(readInputRegistersRequest(1, 0x0000, 10)).toEqual(hex('01 04 00 00 00 0A 70 0D'));
    const req = readInputRegistersRequest(1, 0x0156, 2);
    expect(req.subarray(0, 6)).toEqual(hex('01 04 01 56 00 02'));
    expect(crc16modbus(req.subarray(0, 6))).toBe(req.readUInt16LE(6));
    expect(() => readInputRegistersRequest(0, 0, 1)).toThrow(RangeError);
    expect(() => readInputRegistersRequest(248, 0, 1)).toThrow(RangeError);
    expect(() => readInputRegistersRequest(1, 0x10000, 1)).toThrow(RangeError);
    expect(() => readInputRegistersRequest(1, 0, 0)).toThrow(RangeError);
    expect(() => readInputRegistersRequest(1, 0, 126)).toThrow(RangeError);
  });

  test('response length is known from the third byte', () => {
    const frame = readInputRegistersResponse(1, hex('43 66 00 00'));
    expect(frame).toHaveLength(9);
    expect(responseLength(frame.subarray(0, 2), 1, 4)).toBeUndefined();
    expect(responseLength(frame.subarray(0, 3), 1, 4)).toBe(9);
    expect(responseLength(exceptionResponse(1, 4, 2), 1, 4)).toBe(5);
    expect(() => responseLength(hex('02'), 1, 4)).toThrow(/device 2, expected 1/);
    expect(() => responseLength(hex('01 03'), 1, 4)).toThrow(/function 0x3/);
  });

  test('a valid response gives the register bytes; floats are big-endian IEEE-754', () => {
    const frame = readInputRegistersResponse(1, hex('43 66 00 00 41 20 00 00'));
    const data = parseReadInputRegisters(frame, 1, 4);
    expect(data).toEqual(hex('43 66 00 00 41 20 00 00'));
    expect(data.readFloatBE(0)).toBe(230);
    expect(data.readFloatBE(4)).toBe(10);
  });

  test('CRC error, wrong device, wrong count, exception, truncation are errors', () => {
    const good = readInputRegistersResponse(1, hex('43 66 00 00'));
    const corrupt = Buffer.from(good);
    corrupt.writeUInt8(corrupt.readUInt8(4) ^ 0x01, 4);
    expect(() => parseReadInputRegisters(corrupt, 1, 2)).toThrow(/CRC error/);
    const badCrc = Buffer.from(good);
    badCrc.writeUInt8(badCrc.readUInt8(good.length - 1) ^ 0xff, good.length - 1);
    expect(() => parseReadInputRegisters(badCrc, 1, 2)).toThrow(ModbusError);
    expect(() => parseReadInputRegisters(readInputRegistersResponse(2, hex('43 66 00 00')), 1, 2)).toThrow(/device 2/);
    expect(() => parseReadInputRegisters(good, 1, 4)).toThrow(/4 data bytes, expected 8/);
    expect(() => parseReadInputRegisters(good.subarray(0, 4), 1, 2)).toThrow(ModbusError);
    const ex = (() => {
      try {
        parseReadInputRegisters(exceptionResponse(1, 4, 2), 1, 2);
      } catch (err) {
        return err;
      }
    })();
    expect(ex).toBeInstanceOf(ModbusException);
    expect((ex as ModbusException).code).toBe(2);
    expect((ex as Error).message).toMatch(/illegal data address/);
  });
});
