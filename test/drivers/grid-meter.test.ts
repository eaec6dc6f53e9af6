import { describe, expect, test } from 'vitest';
import { CONTACT_STEADY_US, createContactInput } from '../../drivers/gpio/contact-input.js';
import { createSdm630GridMeter, type ModbusLink } from '../../drivers/meter/grid-meter.js';
import { ModbusError, ModbusException } from '../../drivers/meter/modbus.js';
import { createSimulatedSdm630 } from '../../drivers/sim/sdm630-device.js';
import { fakePigpio } from './fake-pigpio.js';

/**
 * Fixtures written by hand from the SDM630 Modbus map and an independent CRC-16/MODBUS (Python, not our code):
 * the request for registers 0x000C–0x0011 of device 2, and its answer L1 1234.5 W, L2 -800.25 W (export), L3 0 W.
 */
const REQUEST = '0204000c0006b038';
const ANSWER = '02040c449a5000c4481000000000003eea';

/** A link that checks the request bytes and answers with a fixed frame. */
function fixedLink(answer: string): ModbusLink & { requests: string[] } {
  const requests: string[] = [];
  return {
    requests,
    exchange(request) {
      requests.push(request.toString('hex'));
      return Promise.resolve(Buffer.from(answer, 'hex'));
    },
  };
}

describe('SDM630 grid meter driver', () => {
  test('sends the documented request and decodes the float32 powers of a raw answer frame', async () => {
    const link = fixedLink(ANSWER);
    const meter = createSdm630GridMeter(link, 2);
    await expect(meter.readPowerW()).resolves.toEqual([1234.5, -800.25, 0]);
    expect(link.requests).toEqual([REQUEST]);
  });

  test('refuses a frame with a damaged CRC, from another device, or an exception', async () => {
    const damaged = ANSWER.slice(0, -4) + '0000';
    await expect(createSdm630GridMeter(fixedLink(damaged), 2).readPowerW()).rejects.toThrow(/CRC/);
    await expect(createSdm630GridMeter(fixedLink(ANSWER), 3).readPowerW()).rejects.toBeInstanceOf(ModbusError);
    await expect(createSdm630GridMeter(fixedLink('02840232c1'), 2).readPowerW()).rejects.toBeInstanceOf(ModbusException);
  });

  test('against its simulated twin: the powers per line as measured, the address read at each request', async () => {
    let address = 2;
    const twin = createSimulatedSdm630(
      () => address,
      () => ({ voltagesV: [230, 231, 229], powersW: [1500.5, -2000, 42] }),
    );
    const meter = createSdm630GridMeter(twin, () => address);
    await expect(meter.readPowerW()).resolves.toEqual([1500.5, -2000, 42]);
    address = 7;
    await expect(meter.readPowerW()).resolves.toEqual([1500.5, -2000, 42]);
    expect(twin.answered).toBe(2);
    // A driver asking another address gets no answer (the bus would time out).
    await expect(createSdm630GridMeter(twin, 3).readPowerW()).rejects.toThrow(/no device at address 3/);
  });

  test('the twin answers the raw fixture request as the device does, and an exception for a register it has not', async () => {
    const twin = createSimulatedSdm630(2, () => ({ voltagesV: [230, 230, 230], powersW: [1234.5, -800.25, 0] }));
    expect((await twin.exchange(Buffer.from(REQUEST, 'hex'), 2)).toString('hex')).toBe(ANSWER);
    const unknown = await twin.exchange(withCrc('020401000002'), 2);
    expect(unknown[1]).toBe(0x84);
    await expect(twin.exchange(Buffer.from('0204000c0006ffff', 'hex'), 2)).rejects.toThrow(/damaged/);
  });
});

function withCrc(hex: string): Buffer {
  const body = Buffer.from(hex, 'hex');
  let crc = 0xffff;
  for (const byte of body) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  const frame = Buffer.alloc(body.length + 2);
  body.copy(frame);
  frame.writeUInt16LE(crc, body.length);
  return frame;
}

describe('ripple-control contact input (GPIO)', () => {
  test('pulled up, low = closed; bounce filtered; changes reported; closed() reads the pin', () => {
    const fake = fakePigpio({ 17: 1 });
    const contact = createContactInput(fake.module, 17, 'ripple-control contact');
    const pin = fake.pin(17);
    expect(pin.options).toMatchObject({ mode: 0, pullUpDown: 2, alert: true });
    expect(pin.glitchUs).toBe(CONTACT_STEADY_US);
    expect(contact.closed()).toBe(false);
    const seen: boolean[] = [];
    contact.onChange((closed) => seen.push(closed));
    pin.input(0);
    expect(contact.closed()).toBe(true);
    pin.input(1);
    expect(seen).toEqual([true, false]);
    contact.close();
    pin.input(0);
    expect(seen).toEqual([true, false]);
    expect(() => createContactInput(fake.module, 99, 'ripple-control contact')).toThrow(/GPIO/);
  });
});
