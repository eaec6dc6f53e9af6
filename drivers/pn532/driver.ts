/**
 * The PN532 command layer on a serial port (HSU, 115200 8N1): one command outstanding at a time, each answered by
 * the chip's ACK and then its response frame (command code + 1). ACK timeout → the command is sent once more, then
 * fails; a corrupt response → NACK (the chip sends it again), at most twice; an application error frame fails the
 * command; a response timeout sends the command once more, then fails. Long commands (TgInitAsTarget, TgGetData, a
 * waiting InListPassiveTarget) have no response timeout and are ended with `abort()`.
 *
 * Written for this project instead of the npm `pn532` package, whose measured defects (wrong checksum for 1 frame in
 * 256, no timeouts, crash on an error frame, concurrent commands mis-resolved, no resynchronisation) are listed in
 * docs/nfc.md.
 */
import { ACK_FRAME, encodeFrame, FrameDecoder, NACK_FRAME, TFI_CHIP, TFI_HOST, WAKE_UP, type Frame } from './frame.js';
import type { Timers } from '../types.js';

/** PN532 command codes (UM0701-02 §7). */
export const CMD = {
  Diagnose: 0x00,
  GetFirmwareVersion: 0x02,
  ReadRegister: 0x06,
  WriteRegister: 0x08,
  SetParameters: 0x12,
  SAMConfiguration: 0x14,
  PowerDown: 0x16,
  RFConfiguration: 0x32,
  InListPassiveTarget: 0x4a,
  InRelease: 0x52,
  TgInitAsTarget: 0x8c,
  TgGetData: 0x86,
  TgSetData: 0x8e,
  TgGetTargetStatus: 0x8a,
} as const;

/** The part of a `serialport` SerialPort (or SerialPortMock) the driver uses. */
export interface Pn532Port {
  write(data: Buffer, callback?: (err: Error | null | undefined) => void): boolean;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer) => void): unknown;
  off(event: 'error', listener: (err: Error) => void): unknown;
}

export type Pn532ErrorCode = 'ack-timeout' | 'timeout' | 'error-frame' | 'corrupt' | 'aborted' | 'closed' | 'write';

export class Pn532Error extends Error {
  constructor(
    message: string,
    readonly code: Pn532ErrorCode,
  ) {
    super(message);
  }
}

export interface CommandOptions {
  /** Time for the response after the ACK; null = wait until `abort()` (default DEFAULT_RESPONSE_TIMEOUT_MS). */
  responseTimeoutMs?: number | null;
  /** Send the HSU wake-up before the frame, on every try (the chip asleep loses a frame without it). */
  wakeUp?: boolean;
}

export const DEFAULT_ACK_TIMEOUT_MS = 350;
export const DEFAULT_RESPONSE_TIMEOUT_MS = 1_000;
const MAX_NACKS = 2;

interface Running {
  code: number;
  frame: Uint8Array;
  responseTimeoutMs: number | null;
  attempts: number;
  nacks: number;
  phase: 'ack' | 'response';
  timer: unknown;
  resolve: (data: Uint8Array) => void;
  reject: (err: Pn532Error) => void;
}

export interface Pn532DriverOptions {
  timers: Timers;
  ackTimeoutMs?: number;
}

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

export class Pn532Driver {
  private readonly decoder = new FrameDecoder();
  private readonly timers: Timers;
  private readonly ackTimeoutMs: number;
  private running: Running | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Frames discarded: responses to another command, stray ACKs (diagnostics and tests). */
  discarded = 0;

  constructor(
    private readonly port: Pn532Port,
    options: Pn532DriverOptions,
  ) {
    this.timers = options.timers;
    this.ackTimeoutMs = options.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS;
    port.on('data', this.onData);
    port.on('error', this.onError);
  }

  /** Junk bytes the decoder skipped so far. */
  get skipped(): number {
    return this.decoder.skipped;
  }

  /**
   * Sends a command and resolves with its response data (after the response code). Commands queue: the next one is
   * sent when the previous one has finished.
   */
  command(code: number, params: ArrayLike<number> = [], options: CommandOptions = {}): Promise<Uint8Array> {
    const responseTimeoutMs = options.responseTimeoutMs === undefined ? DEFAULT_RESPONSE_TIMEOUT_MS : options.responseTimeoutMs;
    const data = new Uint8Array(1 + params.length);
    data[0] = code;
    data.set(Array.from(params), 1);
    const run = () =>
      new Promise<Uint8Array>((resolve, reject) => {
        if (this.closed) return reject(new Pn532Error('PN532 driver closed', 'closed'));
        const frame = encodeFrame(TFI_HOST, data);
        this.running = {
          code,
          frame: options.wakeUp ? concat(WAKE_UP, frame) : frame,
          responseTimeoutMs,
          attempts: 0,
          nacks: 0,
          phase: 'ack',
          timer: undefined,
          resolve,
          reject,
        };
        this.send();
      });
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => {});
    return result;
  }

  /**
   * Wakes the chip (HSU wake-up bytes) and puts it in normal mode (SAMConfiguration): the way out of Low VBat mode,
   * where it starts. The wake-up goes before every try, as a chip in Low VBat takes only the frame right after it.
   */
  async wakeUp(): Promise<void> {
    await this.command(CMD.SAMConfiguration, [0x01], { wakeUp: true });
  }

  /**
   * Ends the running command without its response: wake-up (the chip powers down in target mode), then an ACK frame,
   * which aborts the command. The command rejects with code `aborted`. Follow with InRelease.
   */
  abort(): void {
    const r = this.running;
    if (!r) return;
    this.finish(new Pn532Error('command aborted', 'aborted'));
    void this.write(concat(WAKE_UP, ACK_FRAME)).catch(() => {});
  }

  /** Whether a command is waiting for its ACK or response. */
  busy(): boolean {
    return this.running !== undefined;
  }

  close(): void {
    this.closed = true;
    this.finish(new Pn532Error('PN532 driver closed', 'closed'));
    this.port.off('data', this.onData);
    // A write still in flight may fail once the port closes: keep listening for its error.
  }

  private write(bytes: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => {
      this.port.write(Buffer.from(bytes), (err) => (err ? reject(new Pn532Error(`PN532 serial port write failed: ${err.message}`, 'write')) : resolve()));
    });
  }

  private send(): void {
    const r = this.running;
    if (!r) return;
    r.attempts++;
    r.phase = 'ack';
    r.nacks = 0;
    this.arm(this.ackTimeoutMs, () => this.retry('ack-timeout', `no ACK within ${this.ackTimeoutMs} ms`));
    this.write(r.frame).catch((err: Pn532Error) => {
      if (this.running === r) this.finish(err);
    });
  }

  /** The command once more (a new command aborts the running one in the chip), or fails after the second try. */
  private retry(code: Pn532ErrorCode, why: string): void {
    const r = this.running;
    if (!r) return;
    if (r.attempts < 2) this.send();
    else this.finish(new Pn532Error(`PN532 command 0x${r.code.toString(16).padStart(2, '0')}: ${why} (after ${r.attempts} tries)`, code));
  }

  private arm(ms: number | null, onTimeout: () => void): void {
    const r = this.running!;
    this.timers.clearTimeout(r.timer);
    r.timer = ms === null ? undefined : this.timers.setTimeout(onTimeout, ms);
  }

  private finish(err: Pn532Error | undefined, data?: Uint8Array): void {
    const r = this.running;
    if (!r) return;
    this.running = undefined;
    this.timers.clearTimeout(r.timer);
    if (err) r.reject(err);
    else r.resolve(data!);
  }

  /** A port error (a failed write, a closed port) fails the running command; it never reaches the process. */
  private readonly onError = (err: Error): void => {
    this.finish(new Pn532Error(`PN532 serial port: ${err.message}`, this.closed ? 'closed' : 'write'));
  };

  private readonly onData = (chunk: Buffer): void => {
    for (const frame of this.decoder.push(chunk)) this.onFrame(frame);
  };

  private onFrame(frame: Frame): void {
    const r = this.running;
    if (!r) {
      this.discarded++;
      return;
    }
    switch (frame.type) {
      case 'ack':
        if (r.phase !== 'ack') {
          this.discarded++;
          return;
        }
        r.phase = 'response';
        if (r.responseTimeoutMs === null) this.arm(null, () => {});
        else this.arm(r.responseTimeoutMs, () => this.retry('timeout', `no response within ${r.responseTimeoutMs} ms`));
        return;
      case 'nack':
        this.discarded++;
        return;
      case 'error':
        this.finish(new Pn532Error(`PN532 command 0x${r.code.toString(16).padStart(2, '0')}: the chip answered with an error frame`, 'error-frame'));
        return;
      case 'corrupt':
        if (r.phase !== 'response') return; // a damaged ACK: the ACK timeout sends the command again
        if (++r.nacks > MAX_NACKS) {
          this.finish(new Pn532Error(`PN532 command 0x${r.code.toString(16).padStart(2, '0')}: corrupt response ${r.nacks} times`, 'corrupt'));
          return;
        }
        void this.write(NACK_FRAME).catch(() => {});
        return;
      case 'info':
        // Only the response to the running command counts (TFI D5, code + 1); a late answer to an aborted command
        // or anything else is dropped. A response whose ACK was lost is still the response.
        if (frame.tfi !== TFI_CHIP || frame.data[0] !== r.code + 1) {
          this.discarded++;
          return;
        }
        this.finish(undefined, frame.data.subarray(1));
        return;
    }
  }
}
