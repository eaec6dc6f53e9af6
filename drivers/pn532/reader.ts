/**
 * The PN532 as the controller's reader: RFID cards in reader turns (InListPassiveTarget) and, in `hybrid` mode,
 * phones in target turns (TgInitAsTarget as a Type 4 Tag), alternating because the chip cannot be both at once. The
 * first detected wins: a phone activating the tag keeps the reader in target mode until `resumeChecking()`.
 *
 * A card is reported once per presentation: after a read the reader only checks (single attempt) whether the same
 * card is still there, and reports again once a check has found the field without it. Turn lengths: TARGET_TURN_MS.
 */
import { Listeners } from '../listeners.js';
import type { DriverLog, NfcTarget, RfidMode, RfidReader, TagTechnology, Timers } from '../types.js';
import { CMD, Pn532Driver, Pn532Error, type Pn532Port } from './driver.js';

/** Reader turn in `rfid` mode: InListPassiveTarget waits in the chip this long, then is re-issued (a liveness check). */
export const RFID_TURN_MS = 10_000;
/**
 * `hybrid` mode: a target turn (TgInitAsTarget, aborted after this long), then a reader turn of one activation
 * attempt (answered at once: about 10 ms with the UART frames and the field's guard time), and again. A phone polls
 * about every 205 ms, so a target turn this long contains one of its polls whatever their phase; a card waits at
 * most one target turn. Design and measurements: docs/nfc.md.
 */
export const TARGET_TURN_MS = 250;
/** While a read card stays on the reader, it is checked again this often. */
export const CARD_PRESENCE_POLL_MS = 200;
/** After a chip failure the reader wakes it up and starts again after this pause. */
export const RECOVERY_MS = 2_000;
/**
 * A phone's APDU not answered by the NFC link within this time gets `6F 00` (a safety net: the link always answers),
 * before the phone gives up (Android: about 1 s).
 */
export const APDU_ANSWER_LIMIT_MS = 900;

/** TgInitAsTarget as a Type 4 Tag (libnfc's parameters): PICC only, SENS_RES 0400, NFCID1 ..B00B, SEL_RES 20. */
const TG_INIT_AS_TARGET = Uint8Array.of(0x05, 0x04, 0x00, 0x00, 0xb0, 0x0b, 0x20, ...new Array<number>(18 + 10 + 2).fill(0));
/** SetParameters: the chip handles ISO 14443-4 as a PICC itself (0x20), answers RATS (0x10) and ATR_REQ (0x04). */
const PARAMETER_FLAGS = 0x34;
/** CIU_TxAuto (0x6305): bit 2 (InitialRFOn) lets the RF field wake the chip in target mode. */
const CIU_TX_AUTO = [0x63, 0x05] as const;

export interface Pn532ReaderOptions {
  timers: Timers;
  log?: DriverLog;
  mode?: RfidMode;
  ackTimeoutMs?: number;
  /** Run before each wake-up (opens the serial port when it is not open yet). */
  prepare?: () => Promise<void>;
}

export interface Pn532Reader extends RfidReader, NfcTarget {
  /** Wakes the chip and starts the turns. */
  start(): void;
  /** Resolves once the reader has stopped (chip released). */
  close(): Promise<void>;
  readonly driver: Pn532Driver;
}

/** The tag's UID as upper-case hex and its technology (ISO 14443-4 capable, SEL_RES bit 0x20 = NFC). */
export function parseInListResponse(data: Uint8Array): { uid: string; technology: TagTechnology } | null {
  if (data.length < 1 || data[0] === 0) return null;
  // NbTg, Tg, SENS_RES (2), SEL_RES, NFCIDLength, NFCID1…
  if (data.length < 6) throw new Pn532Error('InListPassiveTarget response too short', 'corrupt');
  const selRes = data[4]!;
  const idLength = data[5]!;
  if (idLength === 0 || data.length < 6 + idLength) throw new Pn532Error('InListPassiveTarget response truncated', 'corrupt');
  const uid = Array.from(data.subarray(6, 6 + idLength), (b) => b.toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase();
  return { uid, technology: selRes & 0x20 ? 'NFC' : 'RFID' };
}

const isAbort = (err: unknown) => err instanceof Pn532Error && (err.code === 'aborted' || err.code === 'closed');

export function createPn532Reader(port: Pn532Port, options: Pn532ReaderOptions): Pn532Reader {
  const { timers, log } = options;
  const driver = new Pn532Driver(port, { timers, ...(options.ackTimeoutMs !== undefined ? { ackTimeoutMs: options.ackTimeoutMs } : {}) });
  const tags = new Listeners<[string, TagTechnology]>();
  const activated = new Listeners<[]>();
  const apdus = new Listeners<[Uint8Array]>();
  const released = new Listeners<[]>();
  const checking = new Listeners<[]>();

  let mode: RfidMode = options.mode ?? 'rfid';
  let started = false;
  let closed = false;
  let ready = false;
  /** Target mode held for an activated phone (first detected wins). */
  let holding = false;
  let nextTurn: 'reader' | 'target' = 'reader';
  /** The card read last and not yet seen gone. */
  let presentUid: string | null = null;
  let retries: number | undefined;
  /** Ends the current wait (a long command's window, a pause) early. */
  let interrupt: (() => void) | undefined;
  let answer: ((apdu: Uint8Array | null) => void) | undefined;
  let done: Promise<void> = Promise.resolve();

  const safeEmit = <A extends unknown[]>(listeners: Listeners<A>, ...args: A) => {
    try {
      listeners.emit(...args);
    } catch (err) {
      log?.warn({ err }, 'PN532 reader listener failed');
    }
  };

  /** Waits `ms` on the clock; `interrupt()` ends the wait early. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const id = timers.setTimeout(() => {
        interrupt = undefined;
        resolve();
      }, ms);
      interrupt = () => {
        timers.clearTimeout(id);
        interrupt = undefined;
        resolve();
      };
    });

  /**
   * A command the chip answers only when something happens (a card, a phone, an APDU): aborted when `windowMs`
   * passes (null: no window) or on `interrupt()`. Resolves null when aborted.
   */
  const waitFor = async (code: number, params: ArrayLike<number>, windowMs: number | null): Promise<Uint8Array | null> => {
    const id = windowMs === null ? undefined : timers.setTimeout(() => driver.abort(), windowMs);
    interrupt = () => driver.abort();
    try {
      return await driver.command(code, params, { responseTimeoutMs: null });
    } catch (err) {
      if (isAbort(err)) return null;
      throw err;
    } finally {
      interrupt = undefined;
      timers.clearTimeout(id);
    }
  };

  const release = () => driver.command(CMD.InRelease, [0x00]);

  const setRetries = async (n: number) => {
    if (retries === n) return;
    // RFConfiguration item 5: MxRtyATR, MxRtyPSL, MxRtyPassiveActivation (0xFF: the chip waits for a card).
    await driver.command(CMD.RFConfiguration, [0x05, 0x00, 0x01, n]);
    retries = n;
  };

  async function init(): Promise<void> {
    retries = undefined;
    await options.prepare?.();
    await driver.wakeUp();
    await driver.command(CMD.GetFirmwareVersion);
    await driver.command(CMD.SetParameters, [PARAMETER_FLAGS]);
    const [txAuto = 0] = await driver.command(CMD.ReadRegister, CIU_TX_AUTO);
    await driver.command(CMD.WriteRegister, [...CIU_TX_AUTO, txAuto | 0x04]);
  }

  function report(found: { uid: string; technology: TagTechnology }): void {
    presentUid = found.uid;
    safeEmit(tags, found.uid, found.technology);
  }

  /** One activation attempt, answered at once: the card in the field (released again), or null. */
  async function attempt(): Promise<{ uid: string; technology: TagTechnology } | null> {
    await setRetries(0x00);
    const found = parseInListResponse(await driver.command(CMD.InListPassiveTarget, [0x01, 0x00]));
    if (found) await release();
    return found;
  }

  /**
   * A reader turn: one attempt in hybrid mode and while a read card may still be there (reported only when it is
   * another card); in rfid mode otherwise, InListPassiveTarget waiting in the chip for a card (RFID_TURN_MS).
   */
  async function readerTurn(): Promise<void> {
    if (mode === 'hybrid' || presentUid !== null) {
      const found = await attempt();
      if (found && found.uid === presentUid) {
        if (mode === 'rfid') await pause(CARD_PRESENCE_POLL_MS);
        return;
      }
      presentUid = null;
      if (found) report(found);
      return;
    }
    await setRetries(0xff);
    const response = await waitFor(CMD.InListPassiveTarget, [0x01, 0x00], RFID_TURN_MS);
    if (response === null) {
      await release();
      return;
    }
    const found = parseInListResponse(response);
    await release();
    if (found) report(found);
  }

  /** Waits for the link's answer to an APDU (bounded). */
  const answerOf = (apdu: Uint8Array) =>
    new Promise<Uint8Array | null>((resolve) => {
      const id = timers.setTimeout(() => finish(Uint8Array.of(0x6f, 0x00)), APDU_ANSWER_LIMIT_MS);
      const finish = (r: Uint8Array | null) => {
        timers.clearTimeout(id);
        answer = undefined;
        interrupt = undefined;
        resolve(r);
      };
      answer = finish;
      interrupt = () => finish(null);
      safeEmit(apdus, apdu);
    });

  /** A target turn (windowMs) or, holding, target mode until released or resumed. */
  async function targetTurn(windowMs: number | null): Promise<void> {
    const activation = await waitFor(CMD.TgInitAsTarget, TG_INIT_AS_TARGET, windowMs);
    if (activation === null) {
      await release();
      return;
    }
    holding = true;
    safeEmit(activated);
    for (;;) {
      let apdu = new Uint8Array(0);
      let status: number;
      do {
        const got = await waitFor(CMD.TgGetData, [], null);
        if (got === null) return void (await release()); // resumed or closed
        status = got[0] ?? 0x01;
        if ((status & 0x3f) !== 0) return void safeEmit(released); // 0x29 released, 0x2B gone, …
        const joined = new Uint8Array(apdu.length + got.length - 1);
        joined.set(apdu);
        joined.set(got.subarray(1), apdu.length);
        apdu = joined;
      } while (status & 0x40); // more information: the APDU continues
      const response = await answerOf(apdu);
      if (response === null) return void (await release());
      const [setStatus = 0x01] = await driver.command(CMD.TgSetData, response);
      if ((setStatus & 0x3f) !== 0) return void safeEmit(released);
    }
  }

  async function run(): Promise<void> {
    while (!closed) {
      try {
        if (!ready) {
          await init();
          ready = true;
        }
        if (holding && mode === 'hybrid') await targetTurn(null);
        else if (mode === 'hybrid' && nextTurn === 'target') {
          nextTurn = 'reader';
          await targetTurn(TARGET_TURN_MS);
        } else {
          nextTurn = 'target';
          await readerTurn();
        }
      } catch (err) {
        if (closed) break;
        ready = false;
        if (holding) leaveTarget();
        log?.warn({ err: err instanceof Error ? err.message : String(err) }, 'PN532 reader failed; waking it up again');
        await pause(RECOVERY_MS);
      }
    }
  }

  function leaveTarget(): void {
    if (!holding) return;
    holding = false;
    safeEmit(checking);
  }

  return {
    driver,
    onTag: (listener) => tags.add(listener),
    onActivated: (listener) => activated.add(listener),
    onApdu: (listener) => apdus.add(listener),
    onReleased: (listener) => released.add(listener),
    onChecking: (listener) => checking.add(listener),
    mode: () => mode,
    setMode(next) {
      if (next !== 'rfid' && next !== 'hybrid') throw new RangeError(`RFID mode must be rfid or hybrid (got ${JSON.stringify(next)})`);
      if (next === mode) return;
      mode = next;
      if (mode === 'rfid') leaveTarget();
      nextTurn = 'reader';
      interrupt?.();
    },
    respond(apdu) {
      answer?.(apdu);
    },
    resumeChecking() {
      if (!holding) return;
      holding = false;
      nextTurn = 'reader';
      interrupt?.();
    },
    start() {
      if (started) return;
      started = true;
      done = run();
    },
    async close() {
      closed = true;
      interrupt?.();
      driver.close();
      await done;
    },
  };
}
