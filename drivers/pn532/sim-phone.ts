import type { Timers } from '../types.js';
import { decodeTextRecord, encodeTextRecord } from '../nfc/ndef.js';

/**
 * The simulated phone: an Android-like reader in the PN532's field. It polls every PHONE_POLL_MS, validates the
 * capability container, caps Le and Lc at 255, gives up an APDU after PHONE_APDU_TIMEOUT_MS without an answer (the
 * session ends, it stays in the field and polls again), and sometimes resumes after a re-activation without
 * selecting again (a seeded choice; fixed per phone in tests). Its polls and timeouts run on the field's timers.
 */

/** An Android phone polls for tags about every 205 ms (measured on a phone with a field detector). */
export const PHONE_POLL_MS = 205;
/** A phone gives up an APDU not answered within this time (Android: about 1 s). */
export const PHONE_APDU_TIMEOUT_MS = 1_000;
/** The phone's largest Le and Lc: short APDUs (Android caps MLe and MLc at 255). */
export const PHONE_MAX_APDU_DATA = 0xff;

export interface SimulatedPhoneOptions {
  /** Time from entering the field to the first poll (default 0: at once), then every PHONE_POLL_MS. */
  pollPhaseMs?: number;
  /**
   * After a re-activation, go on with the selection of the previous session instead of selecting again (and select
   * again when the tag refuses). Default: the simulator's seeded choice, half the time.
   */
  resumeWithoutSelect?: boolean;
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

/** What a phone sees of the field and the chip emulating the tag (drivers/pn532/sim.ts). */
export interface PhoneField {
  /** The clock of the phone's polls and timeouts. */
  readonly timers: Timers;
  /** The simulator's seeded choices. */
  random(): number;
  /** The phone entered the field (one at a time) or left it. */
  entered(phone: Phone): void;
  left(phone: Phone): void;
  /** The phone in the field now. */
  present(): Phone | undefined;
  /** A poll of the phone: true when it activated the emulated tag. */
  poll(phone: Phone): boolean;
  /** The phone of the tag's current activation. */
  activeWith(): Phone | undefined;
  /** Whether the chip waits (TgGetData) for the next command APDU. */
  awaitingCommand(): boolean;
  /** Something changed for the chip: a waiting command may be answered now. */
  serviceWaiting(): void;
  /** An APDU of `bytes` over the air, then `fn`. */
  overAir(bytes: number, fn: () => void): void;
}

/** The phone, as the chip serves it: `outbox` is its command APDU waiting for TgGetData. */
export class Phone implements SimulatedPhone {
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

  constructor(
    private readonly field: PhoneField,
    private readonly options: SimulatedPhoneOptions,
  ) {
    this.resumeWithoutSelect = options.resumeWithoutSelect;
    this.newActivation();
  }
  /** The phone enters the field and starts polling. */
  enter() {
    this.gone = false;
    this.field.entered(this);
    this.startPolling(this.options.pollPhaseMs ?? 0);
  }

  private newActivation() {
    this.activated = new Promise((resolve) => (this.markActivated = resolve));
  }
  private startPolling(firstInMs: number) {
    const tick = () => {
      this.pollTimer = undefined;
      if (this.gone || this.connected) return;
      if (!this.field.poll(this)) this.pollTimer = this.field.timers.setTimeout(tick, PHONE_POLL_MS);
    };
    this.field.timers.clearTimeout(this.pollTimer);
    if (firstInMs <= 0) tick();
    else this.pollTimer = this.field.timers.setTimeout(tick, firstInMs);
  }
  private record(line: string) {
    this.log.push(line);
    if (this.log.length > 1000) this.log.shift();
  }

  onActivated() {
    this.activations++;
    this.connected = true;
    this.field.timers.clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    const resume = this.activations > 1 && this.selected !== 'none' && (this.resumeWithoutSelect ?? this.field.random() < 0.5);
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
      this.field.timers.clearTimeout(p.timer);
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
    this.field.timers.clearTimeout(p.timer);
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
    if (this.field.activeWith() === this) this.field.serviceWaiting(); // a waiting TgGetData learns the release now
  }

  async transceive(capdu: Uint8Array): Promise<Uint8Array> {
    if (this.gone) throw new Error('the phone has left the field');
    await this.activated;
    if (!this.connected) throw new Error('the tag is not activated');
    this.apdus++;
    return new Promise<Uint8Array>((resolve, reject) => {
      const timer = this.field.timers.setTimeout(() => this.giveUp(), PHONE_APDU_TIMEOUT_MS);
      this.pending = { resolve, reject, timer, capdu };
      this.field.overAir(capdu.length, () => {
        if (this.pending?.capdu !== capdu || this.field.activeWith() !== this) return;
        this.outbox = capdu;
        this.field.serviceWaiting();
      });
    });
  }
  get awaitingCommand(): boolean {
    return !this.gone && this.field.activeWith() === this && this.field.awaitingCommand() && this.outbox === undefined;
  }
  leave() {
    if (this.gone) return;
    this.gone = true;
    this.field.timers.clearTimeout(this.pollTimer);
    this.field.left(this);
    this.release();
  }
  comeBack() {
    if (!this.gone) return;
    this.field.present()?.leave();
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
      for (let read = 0; read < nlen;) {
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
      for (let written = 0; written < message.length;) {
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
