/** Modbus RTU framing: CRC-16/MODBUS, the "read input registers" request (function 0x04) and its response. */

export const READ_INPUT_REGISTERS = 0x04;

/** CRC-16/MODBUS (polynomial 0xA001 reflected, initial 0xFFFF) of `bytes`. On the wire: low byte first. */
export function crc16modbus(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

/** `body` followed by its CRC (low byte first): a complete RTU frame. */
export function withCrc(body: Uint8Array): Buffer {
  const frame = Buffer.alloc(body.length + 2);
  frame.set(body);
  frame.writeUInt16LE(crc16modbus(body), body.length);
  return frame;
}

function checkRange(value: number, min: number, max: number, what: string): void {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new RangeError(`Modbus ${what} must be a whole number from ${min} to ${max} (got ${value})`);
}

/** Request: read `count` input registers from `start` of device `address` (1..247). */
export function readInputRegistersRequest(address: number, start: number, count: number): Buffer {
  checkRange(address, 1, 247, 'device address');
  checkRange(start, 0, 0xffff, 'register address');
  checkRange(count, 1, 125, 'register count');
  const body = Buffer.alloc(6);
  body.writeUInt8(address, 0);
  body.writeUInt8(READ_INPUT_REGISTERS, 1);
  body.writeUInt16BE(start, 2);
  body.writeUInt16BE(count, 4);
  return withCrc(body);
}

/** Response (as a device sends it): `data` are the registers' bytes, big-endian. */
export function readInputRegistersResponse(address: number, data: Uint8Array): Buffer {
  return withCrc(Buffer.from([address, READ_INPUT_REGISTERS, data.length, ...data]));
}

/** Exception response (as a device sends it). */
export function exceptionResponse(address: number, functionCode: number, exceptionCode: number): Buffer {
  return withCrc(Buffer.from([address, functionCode | 0x80, exceptionCode]));
}

export class ModbusError extends Error {
  override name = 'ModbusError';
}

const EXCEPTION_NAMES: Record<number, string> = { 1: ' (illegal function)', 2: ' (illegal data address)', 3: ' (illegal data value)', 4: ' (device failure)' };

/** An exception response: the device understood the request and refused it (codes 1..4: function, address, value, failure). */
export class ModbusException extends ModbusError {
  override name = 'ModbusException';
  constructor(readonly code: number) {
    super(`Modbus exception ${code}${EXCEPTION_NAMES[code] ?? ''}`);
  }
}

/**
 * The length of the response frame that starts `bytes` to a request of `functionCode`, once enough bytes arrived to
 * know it (3); undefined before. Throws ModbusError when the bytes cannot start such a response.
 */
export function responseLength(bytes: Uint8Array, address: number, functionCode: number): number | undefined {
  if (bytes.length >= 1 && bytes[0] !== address) throw new ModbusError(`Modbus answer from device ${bytes[0]}, expected ${address}`);
  if (bytes.length >= 2 && bytes[1] !== functionCode && bytes[1] !== (functionCode | 0x80)) {
    throw new ModbusError(`Modbus answer with function 0x${bytes[1]!.toString(16)}, expected 0x${functionCode.toString(16)}`);
  }
  if (bytes.length < 3) return undefined;
  return bytes[1] === functionCode ? 3 + bytes[2]! + 2 : 5;
}

/**
 * Checks a complete response frame to "read input registers" (`count` registers) and returns the registers' bytes.
 * Throws ModbusError (CRC error, wrong device, function or length) or ModbusException (exception response).
 */
export function parseReadInputRegisters(frame: Uint8Array, address: number, count: number): Buffer {
  const buf = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
  if (buf.length < 5) throw new ModbusError(`Modbus frame too short (${buf.length} bytes)`);
  const body = buf.subarray(0, buf.length - 2);
  if (crc16modbus(body) !== buf.readUInt16LE(buf.length - 2)) throw new ModbusError('Modbus CRC error');
  const expected = responseLength(buf, address, READ_INPUT_REGISTERS);
  if (expected !== buf.length) throw new ModbusError(`Modbus frame of ${buf.length} bytes, its header announces ${expected}`);
  if (buf[1] === (READ_INPUT_REGISTERS | 0x80)) throw new ModbusException(buf[2]!);
  if (buf[2] !== count * 2) throw new ModbusError(`Modbus answer with ${buf[2]} data bytes, expected ${count * 2}`);
  return Buffer.from(buf.subarray(3, 3 + count * 2));
}
