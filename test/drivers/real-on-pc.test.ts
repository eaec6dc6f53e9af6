import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readInputRegistersResponse } from '../../drivers/meter/modbus.js';
import { SDM630_REGISTERS } from '../../drivers/meter/sdm630.js';
import { CMD } from '../../drivers/pn532/driver.js';
import { RECOVERY_MS } from '../../drivers/pn532/reader.js';
import { createSimulatedPn532 } from '../../drivers/pn532/sim.js';
import { FAILED, startHarness, type Harness } from '../harness.js';
import { until } from '../processes.js';
import { openPty, ptyAvailable, type Pty } from './pty.js';

/**
 * Real devices on a PC (docs/hardware.md): with HARDWARE=sim, NFC_PORT runs the real PN532 driver and METER_PORT the
 * real SDM630 driver on that serial port, each on its own, with the rest simulated. Here the port is first one that
 * cannot be opened (the driver reports it and keeps trying), then a pseudo-terminal: the driver opens it with the
 * real serialport binding, and the device at its other end is the test's (the project's strict PN532 simulator, or
 * a Modbus responder with an SDM630's registers). What arrives through the API can only have come through the
 * real driver.
 */

let dir: string;
let h: Harness | undefined;
let pty: Pty | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-port-'));
});
afterEach(async () => {
  await h?.stop();
  await pty?.close();
  h = undefined;
  pty = undefined;
  await rm(dir, { recursive: true, force: true });
});

const lines = (h: Harness) => h.logs.map((l) => JSON.parse(l));

describe('NFC_PORT with HARDWARE=sim: the real PN532 driver, the rest simulated', () => {
  test('the simulated plant stays (/sim), the simulated reader is gone: a simulated tag is refused', async () => {
    h = await startHarness({ env: { NFC_PORT: join(dir, 'ttyPN532') } });
    expect((await h.http('POST', '/sim/plug')).status).toBe(200);
    expect((await h.http('GET', '/sim')).json.plant.vehicle).toBe('connected');
    const tag = await h.http('POST', '/sim/tag', { body: { id: '04A1B2C3' } });
    expect(tag).toMatchObject({ status: 400, json: { ...FAILED, cause: 'The reader is the real PN532 on NFC_PORT: present a real card or phone to it' } });
    const phone = await h.http('POST', '/sim/phone', { body: { request: '{}' } });
    expect(phone).toMatchObject({ status: 400, json: { cause: expect.stringContaining('real PN532 on NFC_PORT') } });
  });

  test.skipIf(!ptyAvailable)(
    'a port that cannot be opened is reported and tried again every 2 s; once it exists the driver wakes the chip and reads cards',
    async () => {
      const path = join(dir, 'ttyPN532');
      h = await startHarness({ env: { NFC_PORT: path } });
      const failures = () => lines(h!).filter((l) => l.msg === 'PN532 reader failed; waking it up again');
      await until('the first failure reported', () => failures().length === 1);
      expect(failures()[0]).toMatchObject({
        level: 40,
        err: `PN532 serial port ${path} cannot be opened: Error: No such file or directory, cannot open ${path}`,
      });
      await h.clock.advance(RECOVERY_MS);
      await until('tried again after RECOVERY_MS', () => failures().length === 2);

      // The port appears: a pty, with the project's PN532 simulator (as strict as the chip) at its other end.
      const chip = await createSimulatedPn532();
      pty = await openPty(path);
      pty.onData((bytes) => void chip.port.write(bytes));
      chip.port.on('data', (bytes: Buffer) => pty!.write(bytes));
      expect(chip.power()).toBe('low-vbat');
      await h.clock.advance(RECOVERY_MS);
      await until('the driver woke the chip and waits for a card', () => chip.commands.includes(CMD.InListPassiveTarget));
      expect(chip.power()).toBe('normal');
      expect(chip.commands.slice(0, 2)).toEqual([CMD.SAMConfiguration, CMD.GetFirmwareVersion]);
      expect(failures()).toHaveLength(2);

      // A card on the real reader reaches the charge cycle: refused (not whitelisted), one long beep of the simulated buzzer.
      chip.tap('04A1B2C3');
      await until('the tag read and refused', async () => (await h!.http('GET', '/sim')).json.plant.beeps === 1);
      expect((await h.http('GET', '/sim')).json.plant.lastBeep).toEqual({ count: 1, ms: 800 });
      await h.controller.events.settled();
      expect(lines(h).find((l) => l.event === 'tag_refused')).toMatchObject({ tagId: '04A1B2C3', reason: 'unknown' });
      await chip.close();
    },
  );
});

/** An SDM630 at Modbus address 1 on the pty: answers "read input registers" from these floats. */
function meterOn(pty: Pty, registers: Record<number, number>): { requests: number } {
  const served = { requests: 0 };
  let rx = Buffer.alloc(0);
  pty.onData((bytes) => {
    rx = Buffer.concat([rx, bytes]);
    while (rx.length >= 8) {
      const request = rx.subarray(0, 8);
      rx = rx.subarray(8);
      const start = request.readUInt16BE(2);
      const count = request.readUInt16BE(4);
      const data = Buffer.alloc(count * 2);
      for (let i = 0; i < count; i += 2) data.writeFloatBE(registers[start + i] ?? 0, i * 2);
      served.requests++;
      pty.write(readInputRegistersResponse(1, data));
    }
  });
  return served;
}

describe('METER_PORT with HARDWARE=sim: the real SDM630 driver, the rest simulated', () => {
  test.skipIf(!ptyAvailable)(
    'a missing adapter fails the meter reads (METER_NOT_RESPONDING), not the start; once it is there, the charge point shows what the meter measures',
    async () => {
      const path = join(dir, 'ttyMETER');
      h = await startHarness({ env: { METER_PORT: path } });
      const session = await h.login();
      await h.step(1_100);
      const messages = async () => (await h!.http('GET', '/v1/messages', { session })).json.messages.map((m: any) => m.errorCode);
      expect(await messages()).toEqual(['METER_NOT_RESPONDING']);
      expect((await h.http('GET', '/sim')).status).toBe(200); // the plant is simulated

      pty = await openPty(path);
      const meter = meterOn(pty, {
        [SDM630_REGISTERS.phaseCurrents]: 13.5,
        [SDM630_REGISTERS.phaseCurrents + 2]: 12.25,
        [SDM630_REGISTERS.phaseCurrents + 4]: 0.5,
        [SDM630_REGISTERS.totalPower]: 6_000.4,
        [SDM630_REGISTERS.importEnergy]: 1_234.5,
      });
      await h.step(1_000);
      expect(await messages()).toEqual([]);
      expect(meter.requests).toBeGreaterThanOrEqual(3);

      // A transaction (free charging) meters with the real meter: its currents and power, not the simulated vehicle's.
      expect((await h.http('PATCH', '/v1/settings', { session, body: { params: [{ key: 'FreeCharging', value: 1 }] } })).status).toBe(200);
      await h.sim('plug');
      await h.sim('charge');
      await h.step(1_000);
      const { transaction } = (await h.http('GET', '/v1/system_state', { session })).json;
      expect(transaction).toMatchObject({ power: 6_000, OCPPMeterCurrent: { L1: 13.5, L2: 12.25, L3: 0.5 }, consumption: 0 });
      expect((await h.http('GET', '/sim')).json.plant.powerW).toBe(16 * 230 * 3); // what the simulated vehicle draws
    },
  );
});
