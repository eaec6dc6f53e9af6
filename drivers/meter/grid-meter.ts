import { parseReadInputRegisters, readInputRegistersRequest } from './modbus.js';

/** SDM630 input registers of the active power per phase (W, IEEE-754 float big-endian, two registers each; import positive). */
export const SDM630_PHASE_POWER = 0x000c;

/** One "read input registers" exchange on a Modbus RTU bus: the request frame out, the answer frame back. */
export interface ModbusLink {
  /** Resolves with the device's answer frame; rejects on timeout or a bus error. */
  exchange(request: Buffer, address: number): Promise<Buffer>;
}

/** A meter at the grid connection point. */
export interface GridMeter {
  /** Active power on L1, L2, L3 in W, as the meter signs it (SDM630: import positive). Rejects when it does not answer. */
  readPowerW(): Promise<[number, number, number]>;
}

/**
 * An Eastron SDM630 as the grid meter: one request for the three phase powers (registers 0x000C–0x0011) at
 * `address` (a number, or read at each request: a setting) over `link`, the answer checked (CRC, device, length)
 * and decoded as float32. The driver holds no rule about what the powers mean.
 */
export function createSdm630GridMeter(link: ModbusLink, at: number | (() => number)): GridMeter {
  const addressOf = typeof at === 'number' ? () => at : at;
  readInputRegistersRequest(addressOf(), 0, 1); // validates the address
  return {
    async readPowerW() {
      const address = addressOf();
      const frame = await link.exchange(readInputRegistersRequest(address, SDM630_PHASE_POWER, 6), address);
      const data = parseReadInputRegisters(frame, address, 6);
      return [data.readFloatBE(0), data.readFloatBE(4), data.readFloatBE(8)];
    },
  };
}
