import serialport from 'serialport';
import { describe, expect, test } from 'vitest';
import { createSdm630Meter, BUS_EXCHANGE_TIMEOUT_MS } from '../../drivers/meter/sdm630.js';
import { readInputRegistersRequest } from '../../drivers/meter/modbus.js';
import { createSimulatedSdm630 } from '../../drivers/sim/sdm630-device.js';
import { createSimulatedSite } from '../../drivers/sim/site.js';
import { createGridInputs } from '../../services/core/grid-inputs.js';
import type { GridReading } from '../../services/core/protocol.js';

const { SerialPortMock } = serialport;

/**
 * The core's energy inputs (services/core/grid-inputs.ts): the grid meter on the charging meter's bus and the
 * ripple-control contact, as the main thread configures them, with the simulated twins of drivers/sim.
 */

function setUp(bus = createSimulatedSdm630(2, () => ({ voltagesV: [230, 230, 230], powersW: [100, 200, -300] }))) {
  const site = createSimulatedSite({ now: () => 0, evPowerW: () => [0, 0, 0], gridMeterAddress: () => 2 });
  const posted: GridReading[] = [];
  const warnings: string[] = [];
  const inFlight: Promise<unknown>[] = [];
  const grid = createGridInputs({
    hardware: { gridMeterBus: bus, rippleContact: site.rippleContact },
    log: { warn: (_f, msg) => void warnings.push(msg) },
    post: (reading) => void posted.push(reading),
    track: (p) => (inFlight.push(p), p),
  });
  const settled = async () => {
    while (inFlight.length) await Promise.allSettled(inFlight.splice(0));
  };
  return { grid, site, bus, posted, warnings, settled };
}

describe('the grid meter on the bus', () => {
  test('read after each charging-meter read once configured; one read at a time; a silent meter is reported once', async () => {
    let silent = false;
    const bus = createSimulatedSdm630(
      () => (silent ? 99 : 2),
      () => ({ voltagesV: [230, 230, 230], powersW: [100, 200, -300] }),
    );
    const { grid, posted, settled } = setUp(bus);
    grid.afterMeterRead();
    await settled();
    expect(posted).toEqual([]); // not configured: not asked
    expect(bus.answered).toBe(0);

    grid.configure({ meterAddress: 2, rippleContact: false });
    grid.afterMeterRead();
    grid.afterMeterRead(); // still reading: not asked twice
    await settled();
    expect(bus.answered).toBe(1);
    expect(posted).toEqual([{ type: 'gridPower', powerW: [100, 200, -300] }]);

    silent = true;
    for (let i = 0; i < 3; i++) {
      grid.afterMeterRead();
      await settled();
    }
    expect(posted.slice(1)).toEqual([{ type: 'gridPower', powerW: null, error: expect.stringMatching(/did not answer/) }]);
    silent = false;
    grid.afterMeterRead();
    await settled();
    expect(posted.at(-1)).toEqual({ type: 'gridPower', powerW: [100, 200, -300] });

    grid.configure({ meterAddress: null, rippleContact: false });
    const asked = bus.answered;
    grid.afterMeterRead();
    await settled();
    expect(bus.answered).toBe(asked);
  });

  test('the charging meter and the grid meter share one RS-485 port, one request at a time; a silent grid meter holds it for its short timeout', async () => {
    const path = `/dev/ROBOT-grid-${process.pid}`;
    SerialPortMock.binding.createPort(path, { echo: false, record: true });
    const port = new SerialPortMock({ path, baudRate: 9600, autoOpen: false });
    const meter = createSdm630Meter(port, { address: 1, timeoutMs: 300 });
    const written: Buffer[] = [];
    const origWrite = port.write.bind(port);
    (port as unknown as { write: typeof port.write }).write = ((data: Buffer, cb: (err: Error | null | undefined) => void) => {
      written.push(Buffer.from(data));
      return origWrite(data, cb);
    }) as typeof port.write;
    // Nobody answers: the grid meter's exchange times out after BUS_EXCHANGE_TIMEOUT_MS, then the meter's request goes.
    const exchange = meter.bus.exchange(readInputRegistersRequest(2, 0x000c, 6), 2);
    let writtenWhenItFailed = -1;
    void exchange.catch(() => (writtenWhenItFailed = written.length));
    const read = meter.read();
    await expect(exchange).rejects.toThrow(new RegExp(`device 2 did not answer within ${BUS_EXCHANGE_TIMEOUT_MS} ms`));
    expect(writtenWhenItFailed).toBe(1); // the meter's request waited for the bus
    await expect(read).rejects.toThrow(/meter did not answer within 300 ms/);
    expect(written.map((w) => w[0])).toEqual([2, 1]);
    await meter.close();
  });
});

test('the ripple-control contact: sent when configured and at every change, not after', () => {
  const { grid, site, posted } = setUp();
  site.setRippleContact(true);
  expect(posted).toEqual([]);
  grid.configure({ meterAddress: null, rippleContact: true });
  site.setRippleContact(false);
  expect(posted).toEqual([
    { type: 'rippleContact', closed: true },
    { type: 'rippleContact', closed: false },
  ]);
  grid.configure({ meterAddress: null, rippleContact: false });
  site.setRippleContact(true);
  expect(posted).toHaveLength(2);
});
