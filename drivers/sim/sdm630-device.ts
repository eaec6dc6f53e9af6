/**
 * The simulated twin of an Eastron SDM630 on the RS-485 bus, at the level of bytes: it answers "read input registers"
 * frames (function 0x04) from the registers it simulates, as the device does (an exception 2 for a register it does
 * not have, silence for another address or a damaged frame). Both the charging meter's and the grid meter's drivers
 * can talk to it through `exchange`.
 */
import { crc16modbus, exceptionResponse, ModbusError, READ_INPUT_REGISTERS, readInputRegistersResponse } from '../meter/modbus.js';
import type { ModbusLink } from '../meter/grid-meter.js';

/** What the simulated meter measures now, per line L1, L2, L3. */
export interface Sdm630Measurement {
  voltagesV: readonly [number, number, number];
  /** Active power per line (W, import positive). */
  powersW: readonly [number, number, number];
}

/** The register map of the simulated device (float32 each, two registers): 0x0000 voltages, 0x0006 currents, 0x000C powers, 0x0034 total power. */
function registerValues(m: Sdm630Measurement): Map<number, number> {
  const values = new Map<number, number>();
  m.voltagesV.forEach((v, i) => values.set(0x0000 + 2 * i, v));
  m.powersW.forEach((p, i) => values.set(0x0006 + 2 * i, m.voltagesV[i]! > 0 ? Math.abs(p) / m.voltagesV[i]! : 0));
  m.powersW.forEach((p, i) => values.set(0x000c + 2 * i, p));
  values.set(0x0034, m.powersW[0] + m.powersW[1] + m.powersW[2]);
  return values;
}

export interface SimulatedSdm630 extends ModbusLink {
  /** Requests answered so far. */
  readonly answered: number;
}

/**
 * A simulated SDM630 at `address` (a number, or read at each request), measuring `measure()` at each request.
 * `exchange` rejects (as a bus timeout would) when the device stays silent.
 */
export function createSimulatedSdm630(at: number | (() => number), measure: () => Sdm630Measurement): SimulatedSdm630 {
  let answered = 0;
  const silent = (why: string) => Promise.reject(new ModbusError(`meter did not answer (${why})`));
  return {
    get answered() {
      return answered;
    },
    exchange(request) {
      const address = typeof at === 'number' ? at : at();
      if (request.length !== 8 || crc16modbus(request.subarray(0, 6)) !== request.readUInt16LE(6)) return silent('damaged request');
      if (request[0] !== address) return silent(`no device at address ${request[0]}`);
      answered++;
      if (request[1] !== READ_INPUT_REGISTERS) return Promise.resolve(exceptionResponse(address, request[1]!, 1));
      const start = request.readUInt16BE(2);
      const count = request.readUInt16BE(4);
      const values = registerValues(measure());
      if (start % 2 !== 0 || count % 2 !== 0 || count === 0) return Promise.resolve(exceptionResponse(address, READ_INPUT_REGISTERS, 2));
      const data = Buffer.alloc(count * 2);
      for (let i = 0; i < count; i += 2) {
        const value = values.get(start + i);
        if (value === undefined) return Promise.resolve(exceptionResponse(address, READ_INPUT_REGISTERS, 2));
        data.writeFloatBE(value, i * 2);
      }
      return Promise.resolve(readInputRegistersResponse(address, data));
    },
  };
}
