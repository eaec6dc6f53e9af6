import serialport from 'serialport';
import { afterEach, describe, expect, test } from 'vitest';
import { CMD, Pn532Driver, Pn532Error } from '../../drivers/pn532/driver.js';
import { ACK_FRAME, encodeFrame, ERROR_FRAME, FrameDecoder, NACK_FRAME, TFI_CHIP } from '../../drivers/pn532/frame.js';
import { parseInListResponse } from '../../drivers/pn532/reader.js';
import { ManualClock, settle } from '../clock.js';

const { SerialPortMock } = serialport;
let n = 0;
const ports: Array<InstanceType<typeof SerialPortMock>> = [];
afterEach(async () => {
  for (const p of ports.splice(0)) if (p.isOpen) await new Promise<void>((r) => p.close(() => r()));
});

/** A mock serial port whose chip side is the test: `host` lists the frames the driver wrote, `chip(bytes)` answers. */
async function scripted() {
  const path = `/dev/pn532-test-${++n}`;
  SerialPortMock.binding.createPort(path, { echo: false, record: false });
  const port = new SerialPortMock({ path, baudRate: 115200, autoOpen: false });
  await new Promise<void>((r, j) => port.open((e) => (e ? j(e) : r())));
  ports.push(port);
  const binding = port.port as unknown as { write(b: Buffer): Promise<void>; emitData(b: Buffer): void };
  const decoder = new FrameDecoder();
  const host: Array<{ type: string; data?: number[] }> = [];
  const write = binding.write.bind(binding);
  binding.write = async (b: Buffer) => {
    await write(b);
    for (const f of decoder.push(b)) host.push(f.type === 'info' ? { type: 'info', data: [...f.data] } : { type: f.type });
  };
  const clock = new ManualClock(0);
  const driver = new Pn532Driver(port, { timers: clock });
  return { port, host, clock, driver, chip: (bytes: ArrayLike<number>) => binding.emitData(Buffer.from(Array.from(bytes))) };
}

const response = (code: number, data: number[] = []) => encodeFrame(TFI_CHIP, Uint8Array.from([code + 1, ...data]));
const FIRMWARE = [0x32, 0x01, 0x06, 0x07];

/** Resolves the promise's outcome without awaiting forever. */
function outcome<T>(p: Promise<T>) {
  const o: { value?: T; error?: unknown; done: boolean } = { done: false };
  p.then(
    (v) => Object.assign(o, { value: v, done: true }),
    (e) => Object.assign(o, { error: e, done: true }),
  );
  return o;
}

describe('PN532 driver', () => {
  test('a command: frame out, ACK, response in; the response data after the code', async () => {
    const { host, driver, chip } = await scripted();
    const r = outcome(driver.command(CMD.GetFirmwareVersion));
    await settle();
    expect(host).toEqual([{ type: 'info', data: [0x02] }]);
    chip(ACK_FRAME);
    chip(response(0x02, FIRMWARE));
    await settle();
    expect(r.value).toEqual(Uint8Array.from(FIRMWARE));
  });

  test('no ACK: sent once more after the ACK timeout; no ACK again: fails with ack-timeout', async () => {
    const { host, clock, driver, chip } = await scripted();
    const r = outcome(driver.command(CMD.GetFirmwareVersion));
    await settle();
    await clock.advance(349);
    expect(host).toHaveLength(1);
    await clock.advance(1);
    expect(host).toHaveLength(2);
    await clock.advance(350);
    expect(r.error).toBeInstanceOf(Pn532Error);
    expect((r.error as Pn532Error).code).toBe('ack-timeout');
    // The next command works when the chip answers.
    const next = outcome(driver.command(CMD.GetFirmwareVersion));
    await settle();
    chip(ACK_FRAME);
    chip(response(0x02, FIRMWARE));
    await settle();
    expect(next.value).toEqual(Uint8Array.from(FIRMWARE));
  });

  test('a delayed response within the timeout is taken; none within it: once more, then timeout', async () => {
    const { host, clock, driver, chip } = await scripted();
    const slow = outcome(driver.command(CMD.GetFirmwareVersion, [], { responseTimeoutMs: 300 }));
    await settle();
    chip(ACK_FRAME);
    await clock.advance(299);
    chip(response(0x02, FIRMWARE));
    await settle();
    expect(slow.value).toEqual(Uint8Array.from(FIRMWARE));
    const lost = outcome(driver.command(CMD.GetFirmwareVersion, [], { responseTimeoutMs: 300 }));
    await settle();
    chip(ACK_FRAME);
    await clock.advance(300);
    expect(host.filter((f) => f.type === 'info')).toHaveLength(3); // sent again
    chip(ACK_FRAME);
    await clock.advance(300);
    expect((lost.error as Pn532Error).code).toBe('timeout');
  });

  test('a corrupt response is asked again with a NACK; the resent one is taken', async () => {
    const { host, driver, chip } = await scripted();
    const r = outcome(driver.command(CMD.GetFirmwareVersion));
    await settle();
    const bad = response(0x02, FIRMWARE);
    bad[7] = bad[7]! ^ 0xff;
    chip(ACK_FRAME);
    chip(bad);
    await settle();
    expect(host.at(-1)).toEqual({ type: 'nack' });
    expect(r.done).toBe(false);
    chip(response(0x02, FIRMWARE));
    await settle();
    expect(r.value).toEqual(Uint8Array.from(FIRMWARE));
  });

  test('corrupt three times: fails (corrupt), never resolves with damaged data', async () => {
    const { driver, chip } = await scripted();
    const r = outcome(driver.command(CMD.GetFirmwareVersion));
    await settle();
    chip(ACK_FRAME);
    const bad = response(0x02, FIRMWARE);
    bad[6] = 0x00;
    for (let i = 0; i < 3; i++) chip(bad);
    await settle();
    expect((r.error as Pn532Error).code).toBe('corrupt');
  });

  test('an error frame fails the command without crashing; the driver goes on', async () => {
    const { driver, chip } = await scripted();
    const r = outcome(driver.command(0x99));
    await settle();
    chip(ACK_FRAME);
    chip(ERROR_FRAME);
    await settle();
    expect((r.error as Pn532Error).code).toBe('error-frame');
    const next = outcome(driver.command(CMD.GetFirmwareVersion));
    await settle();
    chip([...ACK_FRAME, ...response(0x02, FIRMWARE)]);
    await settle();
    expect(next.value).toEqual(Uint8Array.from(FIRMWARE));
  });

  test('junk, a truncated frame, a stale response and NACKs from the chip are skipped; the right response is taken', async () => {
    const { driver, chip } = await scripted();
    const r = outcome(driver.command(CMD.InListPassiveTarget, [0x01, 0x00]));
    await settle();
    chip([0x55, 0x13, 0xff, ...ACK_FRAME.subarray(0, 3)]);
    chip([...ACK_FRAME.subarray(3), 0x42]);
    chip(response(0x02, FIRMWARE).subarray(0, 8)); // truncated
    chip(NACK_FRAME);
    chip(response(0x86, [0x29])); // an answer to another command
    const card = [0x01, 0x01, 0x00, 0x04, 0x08, 0x04, 0x04, 0xa1, 0xb2, 0xc3];
    const frame = response(0x4a, card);
    for (const b of frame) chip([b]); // one byte at a time
    await settle(10);
    expect(r.value).toEqual(Uint8Array.from(card));
    expect(parseInListResponse(r.value!)).toEqual({ uid: '04A1B2C3', technology: 'RFID' });
    expect(driver.discarded).toBeGreaterThan(0);
    expect(driver.skipped).toBeGreaterThan(0);
  });

  test('commands queue: each resolves with its own response, one outstanding at a time', async () => {
    const { host, driver, chip } = await scripted();
    const a = outcome(driver.command(CMD.GetFirmwareVersion));
    const b = outcome(driver.command(CMD.InRelease, [0x00]));
    await settle();
    expect(host).toHaveLength(1);
    chip([...ACK_FRAME, ...response(0x02, FIRMWARE)]);
    await settle();
    expect(host).toHaveLength(2);
    chip([...ACK_FRAME, ...response(0x52, [0x00])]);
    await settle();
    expect(a.value).toEqual(Uint8Array.from(FIRMWARE));
    expect(b.value).toEqual(Uint8Array.of(0x00));
  });

  test('abort: wake-up and ACK to the chip, the waiting command rejects with aborted, its late answer is dropped', async () => {
    const { host, driver, chip } = await scripted();
    const waiting = outcome(driver.command(CMD.TgInitAsTarget, [0x05], { responseTimeoutMs: null }));
    await settle();
    chip(ACK_FRAME);
    await settle();
    driver.abort();
    await settle();
    expect((waiting.error as Pn532Error).code).toBe('aborted');
    expect(host.at(-1)).toEqual({ type: 'ack' });
    const release = outcome(driver.command(CMD.InRelease, [0x00]));
    await settle();
    chip(response(0x8c, [0x08, 0xe0, 0x80])); // late activation: not InRelease's answer
    chip([...ACK_FRAME, ...response(0x52, [0x00])]);
    await settle();
    expect(release.value).toEqual(Uint8Array.of(0x00));
  });
});
