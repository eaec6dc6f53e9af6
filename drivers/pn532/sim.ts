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
 */
import { createRequire } from 'node:module';
import { SerialPortStream } from '@serialport/stream';
import { decodeTextRecord, encodeTextRecord } from '../nfc/ndef.js';
import type { TagTechnology, Timers } from '../types.js';
import { CMD } from './driver.js';
import { encodeFrame, ACK_FRAME, ERROR_FRAME, FrameDecoder, TFI_CHIP, TFI_HOST, type Frame } from './frame.js';

// @serialport/binding-mock's package exports hide its type declarations from NodeNext resolution.
const { MockBinding } = createRequire(import.meta.url)('@serialport/binding-mock') as {
  MockBinding: ConstructorParameters<typeof SerialPortStream>[0]['binding'] & { createPort(path: string, options: { echo: boolean; record: boolean }): void };
};

// serialport's SerialPortMock, built from its two parts: importing `serialport` itself would load the native
// bindings too (about 8 MB of resident memory in every simulated controller).
const SerialPortMock = {
  binding: MockBinding,
  open: (path: string, baudRate: number) => new SerialPortStream({ binding: MockBinding, path, baudRate, autoOpen: false }),
};
export type SimulatedPort = SerialPortStream;
/** The opened @serialport/binding-mock port behind SerialPortMock. */
interface MockPortBinding {
  readonly isOpen: boolean;
  emitData(data: Buffer): void;
  write(buffer: Buffer): Promise<void>;
}

/**
 * Zeros the HSU wake-up needs after `55 55` before a frame is received: bytes sent while the chip's oscillator
 * starts are lost (libnfc sends 14, like this project's driver).
 */
export const WAKE_UP_ZEROS = 8;
/** An Android phone polls for tags about every 205 ms (measured on a phone with a field detector). */
export const PHONE_POLL_MS = 205;
/** A phone gives up an APDU not answered within this time (Android: about 1 s). */
export const PHONE_APDU_TIMEOUT_MS = 1_000;
/** The phone's largest Le and Lc: short APDUs (Android caps MLe and MLc at 255). */
export const PHONE_MAX_APDU_DATA = 0xff;
/** Wire mode: RF time of one passive activation attempt of the reader (5 ms field guard time, REQA to SELECT). */
export const PASSIVE_ATTEMPT_MS = 6;
/** Wire mode: a phone activating the emulated tag (anticollision, SELECT, RATS/ATS at 106 kbps). */
export const TARGET_ACTIVATION_MS = 5;

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
/** SEL_RES bit: ISO 14443-4 compliant. */
const SEL_RES_ISO14443_4 = 0x20;
/** The ATS a simulated ISO 14443-4 card answers to RATS (TL, T0, TA, TB, TC). */
const CARD_ATS = [0x05, 0x78, 0x80, 0x70, 0x02];

/** UART time of `bytes` (8N1: 10 bits a byte) in ms. */
export function uartMs(bytes: number, baudRate: number): number {
  return (bytes * 10 * 1000) / baudRate;
}
/** ISO 14443-4 air time of an APDU of `bytes` at 106 kbps: I-block PCB + data + CRC_A, 9 bits a byte, SOF/EOF. */
export function airMs(bytes: number): number {
  return ((bytes + 3) * 9 + 2) / 106;
}

export interface WireStats {
  /** Bytes on the UART, both directions. */
  uartBytes: number;
  /** APDUs (commands and responses) over the air, and their bytes. */
  airFrames: number;
  airBytes: number;
}

/** The time `stats` take on the wires at `baudRate`: the floor of any implementation. */
export function wireFloorMs(stats: WireStats, baudRate: number): number {
  return uartMs(stats.uartBytes, baudRate) + (stats.airBytes * 9 + stats.airFrames * (3 * 9 + 2)) / 106;
}

interface Card {
  uid: Uint8Array;
  selRes: number;
}

/** Low VBat (after power-on), power-down (target mode, PowerDown) or normal. */
export type PowerMode = 'low-vbat' | 'power-down' | 'normal';

let portCounter = 0;

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
  now: () => Date.now(),
};

export interface SimulatedPn532Options {
  /** Wire timing on the real-time clock at this baud rate (the benchmark); instant delivery without. */
  wire?: { baudRate: number };
  /** The clock of the phone's polls and timeouts (the controller's); real timers by default. */
  timers?: Timers;
  /** Seed of the phones' choices (resuming without selecting again); default 1. */
  seed?: number;
}

export interface SimulatedPhoneOptions {
  /** Time from entering the field to the first poll (default 0: at once), then every PHONE_POLL_MS. */
  pollPhaseMs?: number;
  /**
   * After a re-activation, go on with the selection of the previous session instead of selecting again (and select
   * again when the tag refuses). Default: the simulator's seeded choice, half the time.
   */
  resumeWithoutSelect?: boolean;
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

/** A tag's status word other than 90 00. */
export class TagStatusError extends Error {
  constructor(
    readonly sw: number,
    capdu: Uint8Array,
  ) {
    super(`the tag answered ${sw.toString(16).padStart(4, '0')} to ${Buffer.from(capdu.subarray(0, 4)).toString('hex')}`);
  }
}

export interface SimulatedPhone {
  /** Sends one API request text over NFC (write, then read) and resolves with the answer text. */
  request(text: string): Promise<string>;
  /**
   * NDEF detection on a new session (unless resuming), the write of `message`, then detection again (Android's read)
   * until the file holds a message; resolves with it.
   */
  exchange(message: Uint8Array): Promise<Uint8Array>;
  /** The NDEF write procedure: the file selected if needed, NLEN 0, the message in chunks of MLc, NLEN (the commit). */
  write(message: Uint8Array): Promise<void>;
  /** The NDEF detection procedure (select the application, read and validate the CC, select the file, read). */
  detect(): Promise<Uint8Array>;
  /** One raw command APDU; resolves with the response APDU, rejects when the phone gives up or the tag is gone. */
  transceive(capdu: Uint8Array): Promise<Uint8Array>;
  /** Resolves once the emulated tag has been activated for this phone (its latest time in the field). */
  readonly activated: Promise<void>;
  /** The phone leaves the field (the chip reports status 0x29). */
  leave(): void;
  /** The phone comes back into the field after `leave()`; it polls again and is activated at the next chance. */
  comeBack(): void;
  /** Command APDUs sent so far. */
  apdus: number;
  /** See SimulatedPhoneOptions; may be changed at any time (tests). */
  resumeWithoutSelect: boolean | undefined;
  /** Activations so far. */
  readonly activations: number;
  /** Each APDU and its answer (`00a4… → 9000`, `… → timeout`), the last 1000. */
  readonly log: string[];
  /** Whether the phone has left the field. */
  readonly gone: boolean;
  /** Whether the phone has an ISO-DEP session with the tag now. */
  readonly connected: boolean;
  /**
   * Whether the chip is waiting (TgGetData) for this phone's next command APDU: the exchange is at rest, so the next
   * `transceive` or `leave()` is seen at once (model-based tests step the phone APDU by APDU).
   */
  readonly awaitingCommand: boolean;
}

/** Resolves at performance.now() ≥ at: a timer to just before, then immediates (sub-millisecond precision). */
function atTime(at: number, fn: () => void): void {
  const remaining = at - performance.now();
  if (remaining > 2) setTimeout(() => atTime(at, fn), remaining - 1.5);
  else if (remaining > 0) setImmediate(() => atTime(at, fn));
  else fn();
}

/** A small deterministic PRNG (mulberry32): the same seed gives the same phone behaviour. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The capability container as a phone reads it (NFC Forum T4T 2.0 and 3.0), refused as Android refuses it. */
export interface CapabilityContainer {
  mle: number;
  mlc: number;
  fileId: number;
  maxSize: number;
}

export function validateCapabilityContainer(cc: Uint8Array): CapabilityContainer {
  const u16 = (i: number) => (cc[i]! << 8) | cc[i + 1]!;
  const refuse = (why: string): never => {
    throw new Error(`capability container refused: ${why}`);
  };
  if (cc.length < 15) refuse(`${cc.length} bytes`);
  if (u16(0) < 0x000f) refuse(`CCLEN ${u16(0)}`);
  const version = cc[2]!;
  if (version >> 4 !== 2 && version >> 4 !== 3) refuse(`mapping version ${version >> 4}.${version & 0xf}`);
  const mle = u16(3);
  const mlc = u16(5);
  if (mle < 0x000f) refuse(`MLe ${mle}`);
  if (mlc < 0x0001) refuse(`MLc ${mlc}`);
  if (cc[7] !== 0x04 || cc[8] !== 0x06) refuse(`NDEF file control TLV ${cc[7]}/${cc[8]}`);
  const fileId = u16(9);
  if ([0x0000, 0xe102, 0xe103, 0x3f00, 0x3fff, 0xffff].includes(fileId)) refuse(`file id ${fileId.toString(16)}`);
  const maxSize = u16(11);
  if (maxSize < 0x0005 || maxSize === 0xffff) refuse(`maximum NDEF file size ${maxSize}`);
  if (cc[13] !== 0x00) refuse(`read access ${cc[13]}`);
  if (cc[14] !== 0x00 && cc[14] !== 0xff && cc[14]! < 0x80) refuse(`write access ${cc[14]}`);
  return { mle, mlc, fileId, maxSize };
}

const SELECT_NDEF_APP = [0x00, 0xa4, 0x04, 0x00, 0x07, 0xd2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00];
const SELECT_CC = [0x00, 0xa4, 0x00, 0x0c, 0x02, 0xe1, 0x03];

export async function createSimulatedPn532(options: SimulatedPn532Options = {}): Promise<SimulatedPn532> {
  const path = `/dev/pn532-sim-${process.pid}-${++portCounter}`;
  SerialPortMock.binding.createPort(path, { echo: false, record: false });
  const port = SerialPortMock.open(path, options.wire?.baudRate ?? 115200);
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  const binding = port.port as unknown as MockPortBinding;
  const stats: WireStats = { uartBytes: 0, airFrames: 0, airBytes: 0 };
  const commands: number[] = [];
  const wire = options.wire;
  const timers = options.timers ?? realTimers;
  const random = seededRandom(options.seed ?? 1);

  // Serialised wire delivery: each direction's bytes leave after the previous ones (instant without `wire`).
  let lineFreeAt = 0;
  const onWire = (ms: number, fn: () => void) => {
    if (!wire) return fn();
    const start = Math.max(performance.now(), lineFreeAt);
    lineFreeAt = start + ms;
    atTime(lineFreeAt, fn);
  };
  const toHost = (bytes: Uint8Array) => {
    stats.uartBytes += bytes.length;
    onWire(wire ? uartMs(bytes.length, wire.baudRate) : 0, () => {
      if (binding.isOpen) binding.emitData(Buffer.from(bytes));
    });
  };
  const overAir = (bytes: number, fn: () => void) => {
    stats.airFrames++;
    stats.airBytes += bytes;
    onWire(wire ? airMs(bytes) : 0, fn);
  };
  /** RF time outside APDUs (activations): taken in wire mode, not counted in the APDU stats. */
  const rf = (ms: number, fn: () => void) => onWire(wire ? ms : 0, fn);

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

  const queue: Card[] = [];
  let card: Card | undefined;
  let mustSeeEmpty = false;
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
    if (card && matches(card)) {
      const c = card;
      card = undefined;
      mustSeeEmpty = true;
      rf(PASSIVE_ATTEMPT_MS, () => respond(CMD.InListPassiveTarget, cardResponse(c)));
      return true;
    }
    if (card) {
      // A card that does not answer this search (another modulation, another UID): it leaves unread.
      card = undefined;
      mustSeeEmpty = true;
    }
    if (mustSeeEmpty) {
      mustSeeEmpty = false;
      if (retries !== 0xff) {
        none();
        return true;
      }
    }
    const next = queue.shift();
    if (next) {
      card = next;
      return inList();
    }
    if (retries !== 0xff) {
      none();
      return true;
    }
    return false;
  };

  /** Whether a phone can activate the emulated tag now (the chip waits in TgInitAsTarget, configured for it). */
  const activatable = () =>
    target === 'waiting' && waiting?.code === CMD.TgInitAsTarget && (parameters & PARAM_PICC) !== 0 && ((registers.get(CIU_TX_AUTO) ?? 0) & INITIAL_RF_ON) !== 0 && (selRes & SEL_RES_ISO14443_4) !== 0;

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
        if (params.length < 37 || params.length < 37 + params[35]! || params.length !== 37 + params[35]! + (params[36 + params[35]!] ?? 0)) return syntaxError();
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
    for (let i = 0; i < bytes.length; ) {
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

  class Phone implements SimulatedPhone {
    outbox: Uint8Array | undefined;
    gone = false;
    connected = false;
    apdus = 0;
    activations = 0;
    readonly log: string[] = [];
    activated!: Promise<void>;
    private markActivated!: () => void;
    private pending: { resolve: (r: Uint8Array) => void; reject: (e: Error) => void; timer: unknown; capdu: Uint8Array } | undefined;
    private pollTimer: unknown;
    /** The validated capability container (kept across sessions). */
    private cc: CapabilityContainer | undefined;
    /** What the phone believes is selected in the tag. */
    private selected: 'none' | 'app' | 'ndef' = 'none';
    /** This session resumes the previous one without selecting again (until the first procedure has run). */
    private resuming = false;
    /** NDEF detection done in this session (Android runs it when it discovers a tag). */
    private discovered = false;

    resumeWithoutSelect: boolean | undefined;

    constructor(private readonly options: SimulatedPhoneOptions) {
      this.resumeWithoutSelect = options.resumeWithoutSelect;
      this.newActivation();
    }
    /** The phone enters the field and starts polling. */
    enter() {
      this.gone = false;
      phone = this;
      this.startPolling(this.options.pollPhaseMs ?? 0);
    }

    private newActivation() {
      this.activated = new Promise((resolve) => (this.markActivated = resolve));
    }
    private startPolling(firstInMs: number) {
      const tick = () => {
        this.pollTimer = undefined;
        if (this.gone || this.connected) return;
        if (!poll(this)) this.pollTimer = timers.setTimeout(tick, PHONE_POLL_MS);
      };
      timers.clearTimeout(this.pollTimer);
      if (firstInMs <= 0) tick();
      else this.pollTimer = timers.setTimeout(tick, firstInMs);
    }
    private record(line: string) {
      this.log.push(line);
      if (this.log.length > 1000) this.log.shift();
    }

    onActivated() {
      this.activations++;
      this.connected = true;
      timers.clearTimeout(this.pollTimer);
      this.pollTimer = undefined;
      const resume = this.activations > 1 && this.selected !== 'none' && (this.resumeWithoutSelect ?? random() < 0.5);
      this.resuming = resume;
      this.discovered = resume;
      if (!resume) this.selected = 'none';
      this.markActivated();
    }
    /** The session ended (the phone gave up, left, or the chip left target mode). */
    onDeactivated() {
      if (!this.connected) return;
      this.connected = false;
      this.outbox = undefined;
      const p = this.pending;
      this.pending = undefined;
      if (p) {
        timers.clearTimeout(p.timer);
        this.record(`${Buffer.from(p.capdu).toString('hex')} → tag lost`);
        p.reject(new Error('the tag was lost'));
      }
      this.newActivation();
      if (!this.gone) this.startPolling(PHONE_POLL_MS);
    }
    deliver(rapdu: Uint8Array) {
      const p = this.pending;
      if (!p) return;
      this.pending = undefined;
      timers.clearTimeout(p.timer);
      this.record(`${Buffer.from(p.capdu).toString('hex')} → ${Buffer.from(rapdu).toString('hex')}`);
      p.resolve(rapdu);
    }
    /** No answer in time: the phone gives up the session (the chip reports it released) and polls again. */
    private giveUp() {
      const p = this.pending;
      if (!p) return;
      this.pending = undefined;
      this.record(`${Buffer.from(p.capdu).toString('hex')} → timeout`);
      p.reject(new Error(`the tag did not answer within ${PHONE_APDU_TIMEOUT_MS} ms`));
      this.release();
    }
    private release() {
      if (!this.connected) return;
      this.onDeactivated();
      if (activeWith === this) serviceWaiting(); // a waiting TgGetData learns the release now
    }

    async transceive(capdu: Uint8Array): Promise<Uint8Array> {
      if (this.gone) throw new Error('the phone has left the field');
      await this.activated;
      if (!this.connected) throw new Error('the tag is not activated');
      this.apdus++;
      return new Promise<Uint8Array>((resolve, reject) => {
        const timer = timers.setTimeout(() => this.giveUp(), PHONE_APDU_TIMEOUT_MS);
        this.pending = { resolve, reject, timer, capdu };
        overAir(capdu.length, () => {
          if (this.pending?.capdu !== capdu || activeWith !== this) return;
          this.outbox = capdu;
          serviceWaiting();
        });
      });
    }
    get awaitingCommand(): boolean {
      return !this.gone && activeWith === this && target === 'activated' && waiting?.code === CMD.TgGetData && this.outbox === undefined;
    }
    leave() {
      if (this.gone) return;
      this.gone = true;
      timers.clearTimeout(this.pollTimer);
      if (phone === this) phone = undefined;
      this.release();
    }
    comeBack() {
      if (!this.gone) return;
      phone?.leave();
      this.enter();
    }

    private async ok(capdu: number[]): Promise<Uint8Array> {
      const bytes = Uint8Array.from(capdu);
      const r = await this.transceive(bytes);
      const sw = (r[r.length - 2]! << 8) | r[r.length - 1]!;
      if (sw !== 0x9000) throw new TagStatusError(sw, bytes);
      return r.subarray(0, r.length - 2);
    }

    /**
     * Runs a procedure. Resuming a session without selecting again, a status word other than 90 00 makes the phone
     * select again and run the procedure once more (`resumed` tells the procedure which run it is).
     */
    private async procedure<T>(run: (resumed: boolean) => Promise<T>): Promise<T> {
      if (!this.resuming) return run(false);
      this.resuming = false;
      try {
        return await run(true);
      } catch (err) {
        if (!(err instanceof TagStatusError)) throw err;
        this.selected = 'none';
        return run(false);
      }
    }

    /** The NDEF file selected: the application, the capability container (read and validated), the file. */
    private async selectNdefFile(): Promise<CapabilityContainer> {
      if (this.selected === 'ndef' && this.cc) return this.cc;
      await this.ok(SELECT_NDEF_APP);
      this.selected = 'app';
      await this.ok(SELECT_CC);
      const cc = validateCapabilityContainer(await this.ok([0x00, 0xb0, 0x00, 0x00, 0x0f]));
      this.cc = cc;
      await this.ok([0x00, 0xa4, 0x00, 0x0c, 0x02, cc.fileId >> 8, cc.fileId & 0xff]);
      this.selected = 'ndef';
      return cc;
    }

    /** NDEF detection (NFC Forum T4T, as Android runs it on every read): the message in the file. */
    detect(): Promise<Uint8Array> {
      return this.procedure(async (resumed) => {
        if (!resumed) this.selected = 'none';
        const cc = await this.selectNdefFile();
        const nlenBytes = await this.ok([0x00, 0xb0, 0x00, 0x00, 0x02]);
        const nlen = (nlenBytes[0]! << 8) | nlenBytes[1]!;
        if (nlen > cc.maxSize - 2) throw new Error(`NLEN ${nlen} larger than the NDEF file`);
        const message = new Uint8Array(nlen);
        const le = Math.min(cc.mle, PHONE_MAX_APDU_DATA);
        for (let read = 0; read < nlen; ) {
          const offset = 2 + read;
          const chunk = await this.ok([0x00, 0xb0, offset >> 8, offset & 0xff, Math.min(le, nlen - read)]);
          if (chunk.length === 0) throw new Error('READ BINARY answered no data');
          message.set(chunk.subarray(0, nlen - read), read);
          read += chunk.length;
        }
        this.discovered = true;
        return message;
      });
    }

    /** NDEF write: NLEN 0, the message in chunks of at most MLc from offset 2, then the NLEN (the commit). */
    write(message: Uint8Array): Promise<void> {
      return this.procedure(async () => {
        const cc = await this.selectNdefFile();
        if (message.length > cc.maxSize - 2) throw new Error(`a ${message.length}-byte message does not fit the NDEF file`);
        const lc = Math.min(cc.mlc, PHONE_MAX_APDU_DATA);
        await this.ok([0x00, 0xd6, 0x00, 0x00, 0x02, 0x00, 0x00]);
        for (let written = 0; written < message.length; ) {
          const offset = 2 + written;
          const chunk = message.subarray(written, written + lc);
          await this.ok([0x00, 0xd6, offset >> 8, offset & 0xff, chunk.length, ...chunk]);
          written += chunk.length;
        }
        await this.ok([0x00, 0xd6, 0x00, 0x00, 0x02, message.length >> 8, message.length & 0xff]);
      });
    }

    async exchange(message: Uint8Array): Promise<Uint8Array> {
      if (!this.discovered) await this.detect();
      await this.write(message);
      for (let attempt = 0; ; attempt++) {
        const answer = await this.detect();
        if (answer.length > 0) return answer;
        if (attempt >= 10) throw new Error('no answer in the tag');
      }
    }

    async request(text: string): Promise<string> {
      return decodeTextRecord(await this.exchange(encodeTextRecord(text)));
    }
  }

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
      const bytes = Uint8Array.from(Buffer.from(uid, 'hex'));
      queue.push({ uid: bytes, selRes: technology === 'NFC' ? SEL_RES_ISO14443_4 : 0x08 });
      serviceWaiting();
    },
    phone(phoneOptions = {}) {
      phone?.leave();
      const p = new Phone(phoneOptions);
      p.enter();
      return p;
    },
    async close() {
      phone?.leave();
      if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
    },
  };
}
