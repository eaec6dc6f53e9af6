import { afterEach, describe, expect, test } from 'vitest';
import { CMD, Pn532Driver, Pn532Error } from '../../drivers/pn532/driver.js';
import { ACK_FRAME, encodeFrame, TFI_HOST, WAKE_UP } from '../../drivers/pn532/frame.js';
import { createPn532Reader, parseInListResponse } from '../../drivers/pn532/reader.js';
import { createSimulatedPn532, PHONE_APDU_TIMEOUT_MS, PHONE_POLL_MS, type SimulatedPhone } from '../../drivers/pn532/sim.js';
import { ManualClock, settle } from '../clock.js';

/**
 * The simulated PN532 (drivers/pn532/sim.ts) refuses what the chip refuses (UM0701-02, libnfc's pn53x driver): each
 * rule with the raw command layer, which does exactly what a test tells it (the reader, which must pass them all, is
 * tested in reader.test.ts).
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function chip(seed?: number) {
  const clock = new ManualClock(0);
  const sim = await createSimulatedPn532({ timers: clock, ...(seed === undefined ? {} : { seed }) });
  const driver = new Pn532Driver(sim.port, { timers: clock });
  cleanups.push(async () => {
    driver.close();
    await sim.close();
  });
  /** Raw bytes to the chip, as they are. */
  const raw = async (...parts: ArrayLike<number>[]) => {
    await new Promise<void>((resolve) => sim.port.write(Buffer.concat(parts.map((p) => Buffer.from(Array.from(p)))), () => resolve()));
    await settle();
  };
  return { clock, sim, driver, raw };
}

/** The outcome of a command, run to its end on the manual clock (ACK and response timeouts included). */
async function run(c: { clock: ManualClock; driver: Pn532Driver }, code: number, params: number[] = [], options: Parameters<Pn532Driver['command']>[2] = {}) {
  const o: { value?: Uint8Array; error?: Pn532Error } = {};
  const p = c.driver.command(code, params, options).then(
    (v) => (o.value = v),
    (e: Pn532Error) => (o.error = e),
  );
  await settle();
  for (let i = 0; i < 30 && !('value' in o) && !('error' in o); i++) await c.clock.advance(100);
  await p;
  return o;
}

const frame = (code: number, params: number[] = []) => encodeFrame(TFI_HOST, Uint8Array.from([code, ...params]));
const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : undefined);
/** TgInitAsTarget as a Type 4 Tag (mode 05, SENS_RES 0400, NFCID1 ..B00B, SEL_RES `selRes`). */
const tgInit = (selRes = 0x20) => [0x05, 0x04, 0x00, 0x00, 0xb0, 0x0b, selRes, ...new Array<number>(30).fill(0)];

/** A chip woken up and configured as the reader does it (PICC flag, CIU_TxAuto InitialRFOn) unless told otherwise. */
async function ready(c: Awaited<ReturnType<typeof chip>>, { picc = true, txAuto = true } = {}) {
  expect((await run(c, CMD.SAMConfiguration, [0x01], { wakeUp: true })).value).toBeDefined();
  if (picc) await run(c, CMD.SetParameters, [0x34]);
  if (txAuto) await run(c, CMD.WriteRegister, [0x63, 0x05, 0x04]);
}

describe('the simulated PN532 is as strict as the chip', () => {
  test('it starts in Low VBat mode: only the wake-up followed by SAMConfiguration brings it out', async () => {
    const c = await chip();
    expect(c.sim.power()).toBe('low-vbat');
    // Without the wake-up every frame is lost: no ACK.
    expect((await run(c, CMD.GetFirmwareVersion)).error?.code).toBe('ack-timeout');
    expect((await run(c, CMD.SAMConfiguration, [0x01])).error?.code).toBe('ack-timeout');
    // The wake-up followed by anything but SAMConfiguration: lost too.
    expect((await run(c, CMD.GetFirmwareVersion, [], { wakeUp: true })).error?.code).toBe('ack-timeout');
    // A wake-up too short (the chip's oscillator is not running yet when the frame comes).
    await c.raw([0x55, 0x55, 0x00, 0x00], frame(CMD.SAMConfiguration, [0x01]));
    expect(c.sim.power()).toBe('low-vbat');
    expect(c.sim.commands).toEqual([]);
    expect(c.sim.lostBytes).toBeGreaterThan(0);
    // The wake-up and the SAMConfiguration in separate writes (libnfc's way) or in one (this driver's).
    await c.raw(WAKE_UP);
    expect((await run(c, CMD.SAMConfiguration, [0x01])).value).toEqual(new Uint8Array(0));
    expect(c.sim.power()).toBe('normal');
    expect(hex((await run(c, CMD.GetFirmwareVersion)).value)).toBe('32010607');
    c.sim.reset();
    expect((await run(c, CMD.GetFirmwareVersion)).error?.code).toBe('ack-timeout');
    expect((await run(c, CMD.SAMConfiguration, [0x01], { wakeUp: true })).value).toBeDefined();
  });

  test('after TgInitAsTarget (or PowerDown) it is asleep: only a proper wake-up wakes it, an ACK before it is lost', async () => {
    const c = await chip();
    await ready(c);
    const waiting = c.driver.command(CMD.TgInitAsTarget, tgInit(), { responseTimeoutMs: null }).catch((e: Pn532Error) => e);
    await settle();
    expect([c.sim.power(), c.sim.target()]).toEqual(['power-down', 'waiting']);
    // An ACK alone, an ACK then the wake-up: the ACK is lost, TgInitAsTarget still runs (the chip is awake now).
    await c.raw(ACK_FRAME);
    expect([c.sim.power(), c.sim.target()]).toEqual(['power-down', 'waiting']);
    await c.raw(ACK_FRAME, WAKE_UP);
    expect([c.sim.power(), c.sim.target()]).toEqual(['normal', 'waiting']);
    // Asleep again: a command without the wake-up is lost; the driver's abort (wake-up, then ACK) works.
    c.driver.abort();
    expect(await waiting).toMatchObject({ code: 'aborted' });
    await settle();
    expect(c.sim.target()).toBe('none');
    void c.driver.command(CMD.TgInitAsTarget, tgInit(), { responseTimeoutMs: null }).catch(() => {});
    await settle();
    await c.raw(frame(CMD.InRelease, [0x00]));
    expect(c.sim.commands.at(-1)).toBe(CMD.TgInitAsTarget);
    c.driver.abort();
    await settle();
    expect(hex((await run(c, CMD.InRelease, [0x00])).value)).toBe('00');
    // PowerDown: the same.
    expect(hex((await run(c, CMD.PowerDown, [0x10])).value)).toBe('00');
    expect(c.sim.power()).toBe('power-down');
    expect((await run(c, CMD.GetFirmwareVersion)).error?.code).toBe('ack-timeout');
    expect(hex((await run(c, CMD.GetFirmwareVersion, [], { wakeUp: true })).value)).toBe('32010607');
  });

  test('a phone activates the tag only with the PICC flag, CIU_TxAuto InitialRFOn and SEL_RES 0x20', async () => {
    for (const [config, selRes, activates] of [
      [{ picc: false, txAuto: false }, 0x20, false],
      [{ picc: true, txAuto: false }, 0x20, false],
      [{ picc: false, txAuto: true }, 0x20, false],
      [{ picc: true, txAuto: true }, 0x08, false],
      [{ picc: true, txAuto: true }, 0x20, true],
    ] as const) {
      const c = await chip();
      await ready(c, config);
      const init = c.driver.command(CMD.TgInitAsTarget, tgInit(selRes), { responseTimeoutMs: null }).catch((e: Pn532Error) => e);
      const phone = c.sim.phone();
      for (let i = 0; i < 10; i++) await c.clock.advance(PHONE_POLL_MS);
      expect({ config, selRes, activated: phone.connected }).toEqual({ config, selRes, activated: activates });
      if (activates) expect(hex((await init) as Uint8Array)).toBe('08e080');
      else c.driver.abort();
    }
  });

  test('InListPassiveTarget: every modulation the PN532 has, with its initiator data; anything else is a syntax error', async () => {
    const c = await chip();
    await ready(c);
    await run(c, CMD.RFConfiguration, [0x05, 0x00, 0x01, 0x00]); // one attempt: answered at once
    const inList = async (params: number[]) => {
      const o = await run(c, CMD.InListPassiveTarget, params);
      return o.error ? o.error.code : hex(o.value);
    };
    c.sim.tap('04A1B2C3');
    expect(await inList([0x02, 0x00])).toBe('0101000408' + '0404a1b2c3'); // up to two targets, type A
    expect(await inList([0x01, 0x00])).toBe('00'); // the card has left
    expect(await inList([0x01, 0x01, 0x00, 0xff, 0xff, 0x01, 0x00])).toBe('00'); // FeliCa 212: none in the field
    expect(await inList([0x01, 0x02, 0x00, 0xff, 0xff, 0x01, 0x00])).toBe('00'); // FeliCa 424
    expect(await inList([0x01, 0x03, 0x00])).toBe('00'); // type B, AFI 00
    expect(await inList([0x01, 0x03, 0x00, 0x01])).toBe('00'); // type B, AFI and polling method
    expect(await inList([0x01, 0x04])).toBe('00'); // Jewel
    // A type B search does not read the type A card in the field (it leaves unread).
    c.sim.tap('04A1B2C3');
    expect(await inList([0x01, 0x03, 0x00])).toBe('00');
    // Type A selecting a UID: only that card answers.
    c.sim.tap('0A0B0C0D');
    expect(await inList([0x01, 0x00, 0x04, 0xa1, 0xb2, 0xc3])).toBe('00');
    c.sim.tap('04A1B2C3');
    expect(await inList([0x01, 0x00, 0x04, 0xa1, 0xb2, 0xc3])).toBe('0101000408' + '0404a1b2c3');
    // An ISO 14443-4 card with automatic RATS (SetParameters 0x10): its ATS follows; the reader's parser takes it.
    expect(await inList([0x01, 0x00])).toBe('00');
    c.sim.tap('04112233', 'NFC');
    const nfc = (await run(c, CMD.InListPassiveTarget, [0x01, 0x00])).value!;
    expect(hex(nfc)).toBe('0101000420' + '0404112233' + '0578807002');
    expect(parseInListResponse(nfc)).toEqual({ uid: '04112233', technology: 'NFC' });
    for (const bad of [
      [0x00, 0x00],
      [0x03, 0x00],
      [0x01, 0x05],
      [0x01, 0xff],
      [0x01, 0x01],
      [0x01, 0x01, 0x00],
      [0x01, 0x03],
      [0x02, 0x04],
      [0x01, 0x04, 0x00],
      [0x01, 0x00, 0x01, 0x02],
      [0x01],
    ]) {
      expect({ bad, answer: await inList(bad) }).toEqual({ bad, answer: 'error-frame' });
    }
    // Waiting (infinite retries) for a modulation nobody answers: still waiting until aborted.
    await run(c, CMD.RFConfiguration, [0x05, 0x00, 0x01, 0xff]);
    const waiting = c.driver
      .command(CMD.InListPassiveTarget, [0x01, 0x01, 0x00, 0xff, 0xff, 0x01, 0x00], { responseTimeoutMs: null })
      .catch((e: Pn532Error) => e.code);
    c.sim.tap('04A1B2C3');
    await c.clock.advance(5_000);
    c.driver.abort();
    expect(await waiting).toBe('aborted');
  });

  test('other commands check their parameters as the chip does', async () => {
    const c = await chip();
    await ready(c);
    for (const [code, params] of [
      [CMD.SetParameters, []],
      [CMD.SetParameters, [0x30, 0x00]],
      [CMD.SAMConfiguration, [0x05]],
      [CMD.RFConfiguration, [0x05, 0x00]],
      [CMD.RFConfiguration, [0x99, 0x00]],
      [CMD.ReadRegister, [0x63]],
      [CMD.WriteRegister, [0x63, 0x05]],
      [CMD.TgInitAsTarget, [0x05, 0x04, 0x00]],
      [0x99, []],
    ] as const) {
      expect({ code, params, error: (await run(c, code, [...params])).error?.code }).toEqual({ code, params, error: 'error-frame' });
    }
  });
});

describe('the simulated phone is as strict as an Android phone', () => {
  const OK = [0x90, 0x00];
  /** The capability container of this project's tag, with some bytes replaced. */
  const cc = (over: Partial<Record<number, number>> = {}) => {
    const bytes = [0x00, 0x0f, 0x20, 0x00, 0xf6, 0x00, 0xf6, 0x04, 0x06, 0xe1, 0x04, 0x7f, 0xff, 0x00, 0x00];
    for (const [i, v] of Object.entries(over)) bytes[Number(i)] = v!;
    return bytes;
  };
  /** A lenient Type 4 Tag: capability container `ccBytes`, an NDEF file holding `nlen` bytes of AB; writes accepted. */
  const tag = (ccBytes: number[], nlen: number) => {
    let file: number[] = [];
    const ndef = [nlen >> 8, nlen & 0xff, ...new Array<number>(nlen).fill(0xab)];
    return (apdu: Uint8Array): number[] => {
      const [, ins, p1 = 0, p2 = 0, p3 = 0] = apdu;
      if (ins === 0xa4) {
        if (p1 === 0x00) file = apdu[6] === 0x03 ? ccBytes : ndef;
        return OK;
      }
      if (ins === 0xd6) return OK;
      if (ins === 0xb0) {
        const offset = (p1 << 8) | p2;
        return [...file.slice(offset, offset + p3), ...OK];
      }
      return [0x6d, 0x00];
    };
  };

  /** The real reader (hybrid) serving `answer` as the tag, a phone activated by it. */
  async function tagWith(answer: (apdu: Uint8Array) => number[], seed?: number) {
    const c = await chip(seed);
    const reader = createPn532Reader(c.sim.port, { timers: c.clock, mode: 'hybrid' });
    const apdus: string[] = [];
    reader.onApdu((apdu) => {
      apdus.push(hex(apdu)!);
      reader.respond(Uint8Array.from(answer(apdu)));
    });
    reader.onReleased(() => undefined);
    reader.start();
    cleanups.push(() => reader.close());
    const phone = c.sim.phone();
    await activation(c.clock, phone);
    return { ...c, reader, apdus, phone };
  }
  async function activation(clock: ManualClock, phone: SimulatedPhone) {
    for (let i = 0; i < 20 && !phone.connected; i++) await clock.advance(100);
    expect(phone.connected).toBe(true);
  }

  test('it validates the capability container as Android does', async () => {
    for (const [over, why] of [
      [{ 1: 0x0e }, 'CCLEN'],
      [{ 2: 0x10 }, 'mapping version'],
      [{ 4: 0x0e }, 'MLe'],
      [{ 5: 0x00, 6: 0x00 }, 'MLc'],
      [{ 7: 0x05 }, 'NDEF file control TLV'],
      [{ 9: 0xe1, 10: 0x03 }, 'file id'],
      [{ 11: 0x00, 12: 0x04 }, 'maximum NDEF file size'],
      [{ 11: 0xff, 12: 0xff }, 'maximum NDEF file size'],
      [{ 13: 0x01 }, 'read access'],
      [{ 14: 0x10 }, 'write access'],
    ] as const) {
      const t = await tagWith(tag(cc(over), 4));
      await expect(t.phone.detect(), why).rejects.toThrow(new RegExp(`capability container refused: ${why}`));
    }
    const good = await tagWith(tag(cc(), 4));
    expect(hex(await good.phone.detect())).toBe('abababab');
    // NLEN larger than the file the CC announces: refused too.
    const big = await tagWith(tag(cc({ 11: 0x00, 12: 0x10 }), 0x20));
    await expect(big.phone.detect()).rejects.toThrow(/NLEN 32 larger than the NDEF file/);
  });

  test('it caps Le and Lc at 255 whatever MLe and MLc the tag announces', async () => {
    const t = await tagWith(tag(cc({ 3: 0x04, 4: 0x00, 5: 0x04, 6: 0x00 }), 600));
    expect((await t.phone.detect()).length).toBe(600);
    const reads = t.apdus.filter((a) => a.startsWith('00b0') && a.slice(4, 8) >= '0002');
    expect(reads.map((a) => a.slice(-2))).toEqual(['ff', 'ff', '5a']);
    await t.phone.write(new Uint8Array(300));
    const chunks = t.apdus.filter((a) => a.startsWith('00d6') && a.slice(4, 8) !== '0000');
    expect(chunks.map((a) => a.slice(8, 10))).toEqual(['ff', '2d']);
  });

  test('it gives up an APDU after 1 s without an answer: the session ends, the chip reports the release, it comes again', async () => {
    const c = await chip();
    await ready(c);
    const phone = c.sim.phone();
    const init = await run(c, CMD.TgInitAsTarget, tgInit(), { responseTimeoutMs: null });
    await c.clock.advance(PHONE_POLL_MS);
    expect(hex(init.value)).toBe('08e080');
    const reply = phone.transceive(Uint8Array.of(0x00, 0xa4, 0x04, 0x00, 0x00)).then(
      () => 'answered',
      (e: Error) => e.message,
    );
    await settle();
    expect(hex((await run(c, CMD.TgGetData)).value)).toBe('0000a4040000');
    await c.clock.advance(PHONE_APDU_TIMEOUT_MS - 1);
    expect(phone.connected).toBe(true);
    await c.clock.advance(1);
    expect(await reply).toBe('the tag did not answer within 1000 ms');
    expect(phone.connected).toBe(false);
    expect(phone.log).toEqual(['00a4040000 → timeout']);
    // The answer comes too late: the chip says the initiator released it.
    expect(hex((await run(c, CMD.TgSetData, [0x90, 0x00])).value)).toBe('29');
    // The phone is still in the field and polls: the next TgInitAsTarget is activated again.
    const again = c.driver.command(CMD.TgInitAsTarget, tgInit(), { responseTimeoutMs: null });
    await c.clock.advance(PHONE_POLL_MS);
    expect(hex(await again)).toBe('08e080');
    expect(phone.activations).toBe(2);
  });

  test('after a re-activation it sometimes resumes without selecting again: fixed per phone, else a seeded choice', async () => {
    const firstApdus = async (resume: boolean | undefined, seed: number, times: number) => {
      const t = await tagWith(tag(cc(), 4), seed);
      if (resume !== undefined) t.phone.resumeWithoutSelect = resume;
      await t.phone.detect();
      const firsts: string[] = [];
      for (let i = 0; i < times; i++) {
        t.phone.leave();
        t.phone.comeBack();
        await activation(t.clock, t.phone);
        const before = t.apdus.length;
        await t.phone.detect();
        firsts.push(t.apdus[before]!);
      }
      return firsts;
    };
    expect(await firstApdus(true, 1, 2)).toEqual(['00b0000002', '00b0000002']); // READ BINARY NLEN at once
    expect(await firstApdus(false, 1, 2)).toEqual(['00a4040007d276000085010100', '00a4040007d276000085010100']);
    const seeded = await firstApdus(undefined, 7, 8);
    expect(new Set(seeded)).toEqual(new Set(['00b0000002', '00a4040007d276000085010100']));
    expect(await firstApdus(undefined, 7, 8)).toEqual(seeded);
  });
});
