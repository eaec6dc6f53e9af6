/**
 * A byte-level simulation of a PN532 on its UART, with RFID cards and a phone in its field, on
 * `@serialport/binding-mock` (serialport's SerialPortMock): the driver talks to it through the same SerialPort
 * stream class as to a real chip. The chip answers frames with ACKs and responses as UM0701-02 describes (wake-up
 * from power-down after TgInitAsTarget, abort by ACK, NACK → the last response again, error frame for unknown
 * commands). The phone performs the Type 4 Tag procedures an Android phone does: NDEF detection, then write
 * (NLEN 0, data, NLEN) and read again.
 *
 * Timing: bytes are delivered at once by default (tests and HARDWARE=sim); with `wire` they take their UART time at
 * the baud rate and their ISO 14443 air time at 106 kbps, on the real-time clock (the benchmark).
 */
import { createRequire } from 'node:module';
import { SerialPortStream } from '@serialport/stream';
import { decodeTextRecord, encodeTextRecord } from '../../api/nfc/ndef.js';
import type { TagTechnology } from '../types.js';
import { CMD } from './driver.js';
import { encodeFrame, ACK_FRAME, ERROR_FRAME, FrameDecoder, TFI_CHIP, TFI_HOST } from './frame.js';

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

/** Status codes of TgGetData / TgSetData. */
const STATUS_OK = 0x00;
const STATUS_RELEASED = 0x29;
const STATUS_INVALID_STATE = 0x25;

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

let portCounter = 0;

export interface SimulatedPn532Options {
  /** Wire timing on the real-time clock at this baud rate (the benchmark); instant delivery without. */
  wire?: { baudRate: number };
}

export interface SimulatedPn532 {
  /** The host side: open it (it opens itself) and hand it to the driver. */
  port: SimulatedPort;
  /** A card is tapped: it enters the field, is read once and leaves. Taps queue behind each other. */
  tap(uid: string, technology?: TagTechnology): void;
  /** A phone enters the field (one at a time): it activates the emulated tag when the chip is in target mode. */
  phone(): SimulatedPhone;
  /** Bytes and APDUs transferred so far. */
  stats: WireStats;
  /** Commands the chip received, in order (code), for tests. */
  commands: number[];
  close(): Promise<void>;
}

export interface SimulatedPhone {
  /** Sends one API request text over NFC (write, then read) and resolves with the answer text. */
  request(text: string): Promise<string>;
  /** Writes `message` as the NDEF file content, then reads the file again (Android's detection) until it holds one. */
  exchange(message: Uint8Array): Promise<Uint8Array>;
  /** The NDEF write procedure alone: NLEN 0, the message in chunks of MLc, NLEN (the commit). */
  write(message: Uint8Array): Promise<void>;
  /** The NDEF detection procedure alone: the message in the file (empty when NLEN is 0). */
  detect(): Promise<Uint8Array>;
  /** One raw command APDU; resolves with the response APDU. */
  transceive(capdu: Uint8Array): Promise<Uint8Array>;
  /** Resolves once the emulated tag has been activated for this phone. */
  activated: Promise<void>;
  /** The phone leaves the field (the chip reports status 0x29). */
  leave(): void;
  /** Command APDUs sent so far. */
  apdus: number;
  /** Whether the phone has left the field. */
  readonly gone: boolean;
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

export async function createSimulatedPn532(options: SimulatedPn532Options = {}): Promise<SimulatedPn532> {
  const path = `/dev/pn532-sim-${process.pid}-${++portCounter}`;
  SerialPortMock.binding.createPort(path, { echo: false, record: false });
  const port = SerialPortMock.open(path, options.wire?.baudRate ?? 115200);
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  const binding = port.port as unknown as MockPortBinding;
  const stats: WireStats = { uartBytes: 0, airFrames: 0, airBytes: 0 };
  const commands: number[] = [];
  const wire = options.wire;

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

  // Chip state.
  const decoder = new FrameDecoder();
  let asleep = false;
  let lastResponse: Uint8Array | undefined;
  /** A command answered only when something happens in the field. */
  let waiting: { code: number } | undefined;
  let retries = 0xff;
  const registers = new Map<number, number>();
  const queue: Card[] = [];
  let card: Card | undefined;
  let mustSeeEmpty = false;
  let target: 'none' | 'waiting' | 'activated' = 'none';
  let phone: Phone | undefined;

  const respond = (code: number, data: ArrayLike<number> = []) => {
    const frame = encodeFrame(TFI_CHIP, Uint8Array.from([code + 1, ...Array.from(data)]));
    lastResponse = frame;
    toHost(frame);
  };

  const cardResponse = (c: Card) => [0x01, 0x01, 0x00, 0x04, c.selRes, c.uid.length, ...c.uid];

  /** InListPassiveTarget: a card in the field answers; taps enter one by one, each after the field was seen empty. */
  const inList = (): boolean => {
    if (card) {
      respond(CMD.InListPassiveTarget, cardResponse(card));
      card = undefined;
      mustSeeEmpty = true;
      return true;
    }
    if (mustSeeEmpty) {
      mustSeeEmpty = false;
      if (retries !== 0xff) {
        respond(CMD.InListPassiveTarget, [0x00]);
        return true;
      }
    }
    const next = queue.shift();
    if (next) {
      card = next;
      return inList();
    }
    if (retries !== 0xff) {
      respond(CMD.InListPassiveTarget, [0x00]);
      return true;
    }
    return false;
  };

  const activate = (): boolean => {
    if (!phone || phone.gone) return false;
    target = 'activated';
    asleep = false;
    respond(CMD.TgInitAsTarget, [0x08, 0xe0, 0x80]);
    phone.onActivated();
    return true;
  };

  const getData = (): boolean => {
    if (!phone || phone.gone) {
      respond(CMD.TgGetData, [STATUS_RELEASED]);
      target = 'none';
      return true;
    }
    const capdu = phone.outbox;
    if (!capdu) return false;
    phone.outbox = undefined;
    respond(CMD.TgGetData, [STATUS_OK, ...capdu]);
    return true;
  };

  /** Something changed in the field: a waiting command may be answered now. */
  const serviceWaiting = () => {
    if (!waiting) return;
    const { code } = waiting;
    const answered = code === CMD.InListPassiveTarget ? inList() : code === CMD.TgInitAsTarget ? activate() : code === CMD.TgGetData ? getData() : false;
    if (answered) waiting = undefined;
  };

  const execute = (code: number, params: Uint8Array) => {
    commands.push(code);
    waiting = undefined; // a new command aborts the running one
    switch (code) {
      case CMD.Diagnose:
        return respond(code, params);
      case CMD.GetFirmwareVersion:
        return respond(code, [0x32, 0x01, 0x06, 0x07]);
      case CMD.SAMConfiguration:
      case CMD.SetParameters:
        return respond(code);
      case CMD.RFConfiguration:
        if (params[0] === 0x05 && params.length >= 4) retries = params[3]!;
        return respond(code);
      case CMD.ReadRegister: {
        const values: number[] = [];
        for (let i = 0; i + 1 < params.length; i += 2) values.push(registers.get((params[i]! << 8) | params[i + 1]!) ?? 0);
        return respond(code, values);
      }
      case CMD.WriteRegister:
        for (let i = 0; i + 2 < params.length; i += 3) registers.set((params[i]! << 8) | params[i + 1]!, params[i + 2]!);
        return respond(code);
      case CMD.InListPassiveTarget:
        if (params[0] !== 0x01 || params[1] !== 0x00) return toHost(ERROR_FRAME);
        if (!inList()) waiting = { code };
        return;
      case CMD.InRelease:
        target = 'none';
        return respond(code, [0x00]);
      case CMD.TgInitAsTarget:
        target = 'waiting';
        if (!activate()) {
          waiting = { code };
          asleep = true; // the chip powers down until the RF field (or the host's wake-up) wakes it
        }
        return;
      case CMD.TgGetData:
        if (target !== 'activated') return respond(code, [STATUS_INVALID_STATE]);
        if (!getData()) waiting = { code };
        return;
      case CMD.TgSetData:
        if (target !== 'activated') return respond(code, [STATUS_INVALID_STATE]);
        if (!phone || phone.gone) {
          target = 'none';
          return respond(code, [STATUS_RELEASED]);
        }
        {
          const p = phone;
          const rapdu = params.slice();
          overAir(rapdu.length, () => p.deliver(rapdu));
        }
        return respond(code, [STATUS_OK]);
      default:
        return toHost(ERROR_FRAME);
    }
  };

  const receive = (bytes: Uint8Array) => {
    stats.uartBytes += bytes.length;
    if (asleep) {
      if (!bytes.includes(0x55)) return; // powered down: the frame is lost
      asleep = false;
    }
    for (const frame of decoder.push(bytes)) {
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
    apdus = 0;
    activated: Promise<void>;
    private markActivated!: () => void;
    private pending: ((rapdu: Uint8Array) => void) | undefined;
    private mle = 0;
    private mlc = 0;

    constructor() {
      this.activated = new Promise((resolve) => (this.markActivated = resolve));
    }
    onActivated() {
      this.mle = 0; // a new activation: the application and file must be selected again
      this.markActivated();
    }
    deliver(rapdu: Uint8Array) {
      const p = this.pending;
      this.pending = undefined;
      p?.(rapdu);
    }
    async transceive(capdu: Uint8Array): Promise<Uint8Array> {
      if (this.gone) throw new Error('the phone has left the field');
      await this.activated;
      this.apdus++;
      return new Promise<Uint8Array>((resolve) => {
        this.pending = resolve;
        overAir(capdu.length, () => {
          this.outbox = capdu;
          serviceWaiting();
        });
      });
    }
    get awaitingCommand(): boolean {
      return !this.gone && phone === this && target === 'activated' && waiting?.code === CMD.TgGetData && this.outbox === undefined;
    }
    leave() {
      this.gone = true;
      if (phone === this) phone = undefined;
      if (waiting?.code === CMD.TgGetData) {
        waiting = undefined;
        respond(CMD.TgGetData, [STATUS_RELEASED]);
        target = 'none';
      }
    }

    async ok(capdu: number[]): Promise<Uint8Array> {
      const r = await this.transceive(Uint8Array.from(capdu));
      const sw = (r[r.length - 2]! << 8) | r[r.length - 1]!;
      if (sw !== 0x9000) throw new Error(`the tag answered ${sw.toString(16).padStart(4, '0')} to ${Buffer.from(capdu.slice(0, 4)).toString('hex')}`);
      return r.subarray(0, r.length - 2);
    }

    /** NDEF detection (NFC Forum T4T, as Android runs it on every read): the message in the file. */
    async detect(): Promise<Uint8Array> {
      await this.ok([0x00, 0xa4, 0x04, 0x00, 0x07, 0xd2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]);
      await this.ok([0x00, 0xa4, 0x00, 0x0c, 0x02, 0xe1, 0x03]);
      const cc = await this.ok([0x00, 0xb0, 0x00, 0x00, 0x0f]);
      this.mle = (cc[3]! << 8) | cc[4]!;
      this.mlc = (cc[5]! << 8) | cc[6]!;
      await this.ok([0x00, 0xa4, 0x00, 0x0c, 0x02, 0xe1, 0x04]);
      const nlenBytes = await this.ok([0x00, 0xb0, 0x00, 0x00, 0x02]);
      const nlen = (nlenBytes[0]! << 8) | nlenBytes[1]!;
      const message = new Uint8Array(nlen);
      for (let read = 0; read < nlen; ) {
        const offset = 2 + read;
        const n = Math.min(this.mle, nlen - read);
        const chunk = await this.ok([0x00, 0xb0, offset >> 8, offset & 0xff, n]);
        message.set(chunk, read);
        read += chunk.length;
      }
      return message;
    }

    /** NDEF write: NLEN 0, the message in chunks of at most MLc from offset 2, then the NLEN (the commit). */
    async write(message: Uint8Array): Promise<void> {
      await this.ok([0x00, 0xd6, 0x00, 0x00, 0x02, 0x00, 0x00]);
      for (let written = 0; written < message.length; ) {
        const offset = 2 + written;
        const chunk = message.subarray(written, written + this.mlc);
        await this.ok([0x00, 0xd6, offset >> 8, offset & 0xff, chunk.length, ...chunk]);
        written += chunk.length;
      }
      await this.ok([0x00, 0xd6, 0x00, 0x00, 0x02, message.length >> 8, message.length & 0xff]);
    }

    async exchange(message: Uint8Array): Promise<Uint8Array> {
      if (this.mle === 0) await this.detect();
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

  return {
    port,
    stats,
    commands,
    tap(uid, technology = 'RFID') {
      const bytes = Uint8Array.from(Buffer.from(uid, 'hex'));
      queue.push({ uid: bytes, selRes: technology === 'NFC' ? 0x20 : 0x08 });
      serviceWaiting();
    },
    phone() {
      phone?.leave();
      const p = new Phone();
      phone = p;
      if (waiting?.code === CMD.TgInitAsTarget) {
        waiting = undefined;
        activate();
      }
      return p;
    },
    async close() {
      phone?.leave();
      if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
    },
  };
}
