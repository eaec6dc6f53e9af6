/**
 * A byte-level simulation of a PN532 on its UART, with RFID cards and a phone in its field, on
 * `@serialport/binding-mock` (serialport's SerialPortMock): the driver talks to it through the same SerialPort
 * stream class as to a real chip. It is as strict as the chip (UM0701-02, and what libnfc's pn53x driver relies on),
 * so a driver that only works against a lenient chip fails here:
 *
 * - Power: the chip starts in Low VBat mode; only the HSU wake-up (`55 55` then at least WAKE_UP_ZEROS zeros)
 *   followed by SAMConfiguration brings it out: any other frame after the wake-up is lost, and so is everything
 *   without it. TgInitAsTarget (and PowerDown) power it down: frames are lost (an ACK too) until a wake-up or the RF
 *   field of a phone wakes it; a wake-up does not abort the running command (an ACK or a new command does).
 * - Frames: ACK then the response (code + 1); an ACK from the host aborts the running command, a NACK asks for the
 *   last response again; the syntax-error frame for an unknown command or invalid parameters.
 * - Reader: InListPassiveTarget for every baud rate / modulation the PN532 has (106 kbps type A, 212/424 kbps FeliCa,
 *   106 kbps type B, Jewel) with their initiator data; the field's cards are type A, so the others find nothing
 *   (answered at once, or waited for with infinite retries). An ISO 14443-4 card gets its ATS in the response when
 *   automatic RATS (SetParameters 0x10) is on.
 * - Target: a phone activates the emulated tag only when the ISO 14443-4 PICC flag (SetParameters 0x20) and
 *   CIU_TxAuto's InitialRFOn bit (the RF field wakes the chip) are set and SEL_RES says ISO 14443-4 (0x20).
 * - The phone (an Android-like reader, see `SimulatedPhone`): polls every PHONE_POLL_MS, validates the capability
 *   container, caps Le and Lc at 255, gives up an APDU after PHONE_APDU_TIMEOUT_MS without an answer (the session
 *   ends, it stays in the field and polls again), and sometimes resumes after a re-activation without selecting
 *   again (a seeded choice; fixed per phone in tests).
 *
 * Timing: bytes are delivered at once by default (tests and HARDWARE=sim); with `wire` they take their UART time at
 * the baud rate and their ISO 14443 air time at 106 kbps, on the real-time clock (the benchmark). The phone's polls
 * and timeouts run on `timers` (the controller's clock; the manual clock in tests).
 *
 * This file is the chip; the wires (port, timing) are in sim-wire.ts, the RF field's cards in sim-field.ts, the
 * phone in sim-phone.ts.
 */
import type { TagTechnology, Timers } from '../types.js';
import { CMD } from './driver.js';
import { encodeFrame, ACK_FRAME, ERROR_FRAME, FrameDecoder, TFI_CHIP, TFI_HOST, type Frame } from './frame.js';
import { CARD_ATS, createCardsInField, PASSIVE_ATTEMPT_MS, SEL_RES_ISO14443_4, TARGET_ACTIVATION_MS, type Card } from './sim-field.js';
import { Phone, type PhoneField, type SimulatedPhone, type SimulatedPhoneOptions } from './sim-phone.js';
import { seededRandom } from '../seeded-random.js';
import { realTimers } from '../timers.js';
import { createWireDelivery, openSimulatedPort, uartMs, type SimulatedPort, type WireStats } from './sim-wire.js';

export { PHONE_APDU_TIMEOUT_MS, PHONE_MAX_APDU_DATA, PHONE_POLL_MS, TagStatusError, validateCapabilityContainer } from './sim-phone.js';
export type { CapabilityContainer, SimulatedPhone, SimulatedPhoneOptions } from './sim-phone.js';
export { airMs, uartMs, wireFloorMs } from './sim-wire.js';
export type { SimulatedPort, WireStats } from './sim-wire.js';

/**
 * Zeros the HSU wake-up needs after `55 55` before a frame is received: bytes sent while the chip's oscillator
 * starts are lost (libnfc sends 14, like this project's driver).
 */
export const WAKE_UP_ZEROS = 8;

/** Status codes of TgGetData / TgSetData. */
const STATUS_OK = 0x00;
const STATUS_RELEASED = 0x29;
const STATUS_INVALID_STATE = 0x25;
/** SetParameters flags. */
const PARAM_AUTO_RATS = 0x10;
const PARAM_PICC = 0x20;
/** CIU_TxAuto and its InitialRFOn bit: the RF level detector wakes the chip from power-down. */
const CIU_TX_AUTO = 0x6305;
const INITIAL_RF_ON = 0x04;

/** Low VBat (after power-on), power-down (target mode, PowerDown) or normal. */
export type PowerMode = 'low-vbat' | 'power-down' | 'normal';

export interface SimulatedPn532Options {
  /** Wire timing on the real-time clock at this baud rate (the benchmark); instant delivery without. */
  wire?: { baudRate: number };
  /** The clock of the phone's polls and timeouts (the controller's); real timers by default. */
  timers?: Timers;
  /** Seed of the phones' choices (resuming without selecting again); default 1. */
  seed?: number;
}

export interface SimulatedPn532 {
  /** The host side: open it (it opens itself) and hand it to the driver. */
  port: SimulatedPort;
  /** A card is tapped: it enters the field, is read once and leaves. Taps queue behind each other. */
  tap(uid: string, technology?: TagTechnology): void;
  /** A phone enters the field (one at a time; one already there leaves). */
  phone(options?: SimulatedPhoneOptions): SimulatedPhone;
  /** The chip's power mode. */
  power(): PowerMode;
  /** The chip's target state: not a target, waiting for a phone (TgInitAsTarget), or activated by one. */
  target(): 'none' | 'waiting' | 'activated';
  /** Power cycle: the chip starts again in Low VBat mode with its settings and registers at their defaults. */
  reset(): void;
  /** Bytes and APDUs transferred so far. */
  stats: WireStats;
  /** Commands the chip executed, in order (code), for tests. */
  commands: number[];
  /** Bytes the chip lost because it was asleep (Low VBat or power-down without a wake-up), for tests. */
  readonly lostBytes: number;
  close(): Promise<void>;
}

export async function createSimulatedPn532(options: SimulatedPn532Options = {}): Promise<SimulatedPn532> {
  const { port, binding } = await openSimulatedPort(options.wire?.baudRate ?? 115200);
  const stats: WireStats = { uartBytes: 0, airFrames: 0, airBytes: 0 };
  const commands: number[] = [];
  const wire = options.wire;
  const timers = options.timers ?? realTimers;
  const random = seededRandom(options.seed ?? 1);

  const { onWire, toHost, overAir, rf } = createWireDelivery(binding, stats, wire);

  // Chip state (powerOn sets it).
  let power: PowerMode;
  let decoder: FrameDecoder;
  /** Wake-up detection while asleep: `55` bytes seen, then zeros. */
  let wake: { fives: number; zeros: number };
  /** Low VBat: the wake-up was received, the next frame decides (SAMConfiguration or lost). */
  let listening: boolean;
  let lostBytes = 0;
  let lastResponse: Uint8Array | undefined;
  /** A command answered only when something happens in the field. */
  let waiting: { code: number } | undefined;
  let retries: number;
  let parameters: number;
  let registers: Map<number, number>;
  /** What InListPassiveTarget looks for, when it waits. */
  let search: { typeA: boolean; maxTg: number; uid: Uint8Array | undefined };
  let target: 'none' | 'waiting' | 'activated';
  /** SEL_RES of the running TgInitAsTarget. */
  let selRes = 0;
  /** The phone of the current activation. */
  let activeWith: Phone | undefined;

  const cards = createCardsInField();
  let phone: Phone | undefined;

  function powerOn(): void {
    power = 'low-vbat';
    decoder = new FrameDecoder();
    wake = { fives: 0, zeros: 0 };
    listening = false;
    lastResponse = undefined;
    waiting = undefined;
    retries = 0xff;
    parameters = 0;
    registers = new Map();
    search = { typeA: true, maxTg: 1, uid: undefined };
    endTarget();
  }

  const respond = (code: number, data: ArrayLike<number> = []) => {
    const frame = encodeFrame(TFI_CHIP, Uint8Array.from([code + 1, ...Array.from(data)]));
    lastResponse = frame;
    toHost(frame);
  };
  const syntaxError = () => toHost(ERROR_FRAME);

  /** The target session ends (InRelease, another mode, a reset): the phone loses the tag. */
  function endTarget(): void {
    target = 'none';
    const p = activeWith;
    activeWith = undefined;
    p?.onDeactivated();
  }

  const cardResponse = (c: Card) => [
    0x01,
    0x01,
    0x00,
    0x04,
    c.selRes,
    c.uid.length,
    ...c.uid,
    ...(c.selRes & SEL_RES_ISO14443_4 && parameters & PARAM_AUTO_RATS ? CARD_ATS : []),
  ];
  const none = () => rf(PASSIVE_ATTEMPT_MS, () => respond(CMD.InListPassiveTarget, [0x00]));
  const matches = (c: Card) => search.typeA && (!search.uid || Buffer.from(search.uid).equals(Buffer.from(c.uid)));

  /** InListPassiveTarget: a card in the field answers; taps enter one by one, each after the field was seen empty. */
  const inList = (): boolean => {
    const c = cards.read(matches, retries === 0xff);
    if (c) {
      rf(PASSIVE_ATTEMPT_MS, () => respond(CMD.InListPassiveTarget, cardResponse(c)));
      return true;
    }
    if (retries !== 0xff) {
      none();
      return true;
    }
    return false;
  };

  /** Whether a phone can activate the emulated tag now (the chip waits in TgInitAsTarget, configured for it). */
  const activatable = () =>
    target === 'waiting' &&
    waiting?.code === CMD.TgInitAsTarget &&
    (parameters & PARAM_PICC) !== 0 &&
    ((registers.get(CIU_TX_AUTO) ?? 0) & INITIAL_RF_ON) !== 0 &&
    (selRes & SEL_RES_ISO14443_4) !== 0;

  /** A phone's poll: it activates the tag when it can. */
  const poll = (p: Phone): boolean => {
    if (!activatable() || p !== phone) return false;
    waiting = undefined;
    target = 'activated';
    activeWith = p;
    power = 'normal'; // the RF field woke the chip
    p.onActivated();
    rf(TARGET_ACTIVATION_MS, () => respond(CMD.TgInitAsTarget, [0x08, 0xe0, 0x80]));
    return true;
  };

  /** TgGetData: the phone's next command APDU, or 0x29 when the phone has ended the session. */
  const getData = (): boolean => {
    if (!activeWith?.connected) {
      respond(CMD.TgGetData, [STATUS_RELEASED]);
      endTarget();
      return true;
    }
    const capdu = activeWith.outbox;
    if (!capdu) return false;
    activeWith.outbox = undefined;
    respond(CMD.TgGetData, [STATUS_OK, ...capdu]);
    return true;
  };

  /** Something changed in the field: a waiting command may be answered now. */
  const serviceWaiting = () => {
    if (!waiting) return;
    const { code } = waiting;
    const answered = code === CMD.InListPassiveTarget ? inList() : code === CMD.TgGetData ? getData() : false;
    if (answered) waiting = undefined;
  };

  /** InListPassiveTarget's parameters as UM0701-02 §7.3.5 defines them; null: a syntax error. */
  const parseSearch = (params: Uint8Array): typeof search | null => {
    const [maxTg = 0, brTy = 0xff] = params;
    const data = params.subarray(2);
    if (maxTg < 1 || maxTg > 2) return null;
    switch (brTy) {
      case 0x00: // 106 kbps type A: optionally the UID of the card to select (4, 7 or 10 bytes)
        if (![0, 4, 7, 10].includes(data.length)) return null;
        return { typeA: true, maxTg, uid: data.length ? data.slice() : undefined };
      case 0x01: // 212 / 424 kbps FeliCa: the polling request (5 bytes)
      case 0x02:
        return data.length === 5 ? { typeA: false, maxTg, uid: undefined } : null;
      case 0x03: // 106 kbps type B: AFI, optionally the polling method
        return data.length === 1 || data.length === 2 ? { typeA: false, maxTg, uid: undefined } : null;
      case 0x04: // 106 kbps Innovision Jewel: one target, no data
        return maxTg === 1 && data.length === 0 ? { typeA: false, maxTg, uid: undefined } : null;
      default:
        return null;
    }
  };

  const execute = (code: number, params: Uint8Array) => {
    commands.push(code);
    waiting = undefined; // a new command aborts the running one
    switch (code) {
      case CMD.Diagnose:
        // 00 communication line test (echo), 01 ROM and 02 RAM test (OK); other tests need hardware.
        if (params[0] === 0x00) return respond(code, params);
        if (params[0] === 0x01 || params[0] === 0x02) return respond(code, [0x00]);
        return syntaxError();
      case CMD.GetFirmwareVersion:
        return respond(code, [0x32, 0x01, 0x06, 0x07]);
      case CMD.SAMConfiguration:
        if (params.length < 1 || params[0]! < 0x01 || params[0]! > 0x04) return syntaxError();
        return respond(code);
      case CMD.SetParameters:
        if (params.length !== 1) return syntaxError();
        parameters = params[0]!;
        return respond(code);
      case CMD.PowerDown:
        if (params.length < 1) return syntaxError();
        respond(code, [0x00]);
        endTarget();
        power = 'power-down';
        return;
      case CMD.RFConfiguration: {
        const lengths: Record<number, number> = { 0x01: 1, 0x02: 3, 0x04: 1, 0x05: 3, 0x0a: 11, 0x0b: 12, 0x0c: 3, 0x0d: 9 };
        if (params.length < 1 || lengths[params[0]!] !== params.length - 1) return syntaxError();
        if (params[0] === 0x05) retries = params[3]!;
        return respond(code);
      }
      case CMD.ReadRegister: {
        if (params.length === 0 || params.length % 2 !== 0) return syntaxError();
        const values: number[] = [];
        for (let i = 0; i + 1 < params.length; i += 2) values.push(registers.get((params[i]! << 8) | params[i + 1]!) ?? 0);
        return respond(code, values);
      }
      case CMD.WriteRegister:
        if (params.length === 0 || params.length % 3 !== 0) return syntaxError();
        for (let i = 0; i + 2 < params.length; i += 3) registers.set((params[i]! << 8) | params[i + 1]!, params[i + 2]!);
        return respond(code);
      case CMD.InListPassiveTarget: {
        const parsed = parseSearch(params);
        if (!parsed) return syntaxError();
        endTarget();
        search = parsed;
        if (!inList()) waiting = { code };
        return;
      }
      case CMD.InRelease:
        endTarget();
        return respond(code, [0x00]);
      case CMD.TgInitAsTarget:
        // Mode, MIFARE (SENS_RES 2, NFCID1t 3, SEL_RES), FeliCa (18), NFCID3t (10), LEN Gt + Gt, LEN Tk + Tk.
        if (params.length < 37 || params.length < 37 + params[35]! || params.length !== 37 + params[35]! + (params[36 + params[35]!] ?? 0))
          return syntaxError();
        endTarget();
        selRes = params[6]!;
        target = 'waiting';
        waiting = { code };
        power = 'power-down'; // until the RF field (or the host's wake-up) wakes the chip
        return;
      case CMD.TgGetData:
        if (target !== 'activated') return respond(code, [STATUS_INVALID_STATE]);
        if (!getData()) waiting = { code };
        return;
      case CMD.TgSetData: {
        if (target !== 'activated') return respond(code, [STATUS_INVALID_STATE]);
        const p = activeWith;
        if (!p?.connected) {
          respond(code, [STATUS_RELEASED]);
          endTarget();
          return;
        }
        const rapdu = params.slice();
        overAir(rapdu.length, () => p.deliver(rapdu));
        return respond(code, [STATUS_OK]);
      }
      default:
        return syntaxError();
    }
  };

  /** A frame the chip received while awake. */
  const onFrame = (frame: Frame) => {
    if (frame.type === 'ack') {
      waiting = undefined; // abort
      if (target === 'waiting') target = 'none';
    } else if (frame.type === 'nack') {
      if (lastResponse) toHost(lastResponse);
    } else if (frame.type === 'info' && frame.tfi === TFI_HOST && frame.data.length > 0) {
      toHost(ACK_FRAME);
      execute(frame.data[0]!, frame.data.subarray(1));
    }
    // corrupt or error frames from the host: no ACK, the host's ACK timeout sends again
  };

  /** Asleep: only the wake-up counts; every other byte is lost. Returns true when the wake-up is complete. */
  const scanWakeUp = (b: number): boolean => {
    if (b === 0x55) {
      if (wake.zeros > 0) wake = { fives: 0, zeros: 0 };
      wake.fives++;
      return false;
    }
    if (b === 0x00 && wake.fives >= 2) {
      if (++wake.zeros >= WAKE_UP_ZEROS) {
        wake = { fives: 0, zeros: 0 };
        return true;
      }
      return false;
    }
    lostBytes += wake.fives + wake.zeros + 1;
    wake = { fives: 0, zeros: 0 };
    return false;
  };

  const receive = (bytes: Uint8Array) => {
    stats.uartBytes += bytes.length;
    for (let i = 0; i < bytes.length;) {
      if (power === 'normal') {
        // A frame that powers the chip down ends what it hears of this write (the driver never sends more at once).
        for (const frame of decoder.push(bytes.subarray(i))) if (power === 'normal') onFrame(frame);
        return;
      }
      if (power === 'low-vbat' && listening) {
        // After the wake-up the chip takes one frame: SAMConfiguration brings it out of Low VBat, anything else is lost.
        const frames = decoder.push(bytes.subarray(i, i + 1));
        i++;
        const frame = frames[0];
        if (!frame) continue;
        listening = false;
        if (frame.type === 'info' && frame.tfi === TFI_HOST && frame.data[0] === CMD.SAMConfiguration) {
          power = 'normal';
          onFrame(frame);
        } else {
          decoder = new FrameDecoder();
        }
        continue;
      }
      if (scanWakeUp(bytes[i++]!)) {
        decoder = new FrameDecoder();
        if (power === 'power-down') power = 'normal';
        else listening = true;
      }
    }
  };

  const write = binding.write.bind(binding);
  binding.write = async (buffer: Buffer) => {
    await write(buffer);
    const bytes = new Uint8Array(buffer);
    onWire(wire ? uartMs(bytes.length, wire.baudRate) : 0, () => receive(bytes));
  };

  /** What the phone sees of the field and of the chip emulating its tag. */
  const field: PhoneField = {
    timers,
    random,
    entered: (p) => (phone = p),
    left: (p) => {
      if (phone === p) phone = undefined;
    },
    present: () => phone,
    poll,
    activeWith: () => activeWith,
    awaitingCommand: () => target === 'activated' && waiting?.code === CMD.TgGetData,
    serviceWaiting,
    overAir,
  };

  powerOn();

  return {
    port,
    stats,
    commands,
    get lostBytes() {
      return lostBytes;
    },
    power: () => power,
    target: () => target,
    reset: () => powerOn(),
    tap(uid, technology = 'RFID') {
      cards.tap(uid, technology);
      serviceWaiting();
    },
    phone(phoneOptions = {}) {
      phone?.leave();
      const p = new Phone(field, phoneOptions);
      p.enter();
      return p;
    },
    async close() {
      phone?.leave();
      if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
    },
  };
}
