import { NFC_IDLE_MS } from '../../machines/nfc-link.js';
import type { SoakController } from './soak-controller.js';

/**
 * The soak's phone (docs/performance.md, "Soak"): now and then a visit of one to three NFC requests a second apart
 * through the simulated phone (RFID Mode RFID/NFC hybrid), each to be answered 200.
 *
 * The spec (section 1, NFC activation) says the reader, once a phone is detected, uses NFC until one minute without
 * activity: no card is read in that minute. So the sessions ask `inMinute()` before they present a tag, and on some
 * visits one tag is presented inside the minute on purpose (`checkDue()`): it must start its transaction only after
 * the minute, never in it. Visits happen between sessions, never while a tag is on its way.
 */
export interface SoakPhone {
  /** Between sessions: a visit, when one is due. */
  visitIfDue(): Promise<void>;
  /** Whether a card presented now could fall in the phone's minute (a margin included). */
  inMinute(): boolean;
  /** Whether the tag of this session should be presented inside the minute, to check it waits for the minute's end. */
  checkDue(): boolean;
  /** For that check: no transaction may start before `earliest`; the tag must be read by `latest`. */
  minuteBounds(): { earliest: number; latest: number };
  /** A tag presented inside the minute started its transaction at `at` (performance.now()). */
  checked(at: number): void;
  /** The controller was killed: its link (and the phone's minute) went with it. */
  forget(): void;
  counts(): { visits: number; requests: number; failed: number; checks: number; checksFailed: number };
}

/** How far apart the visits are (ms, drawn between the two). */
const VISIT_GAP_MS: readonly [number, number] = [90_000, 240_000];
/** The reader's turns and the request's own time around the minute's start and end. */
const MARGIN_MS = 2_000;
const READ_WITHIN_MS = 8_000;
/**
 * The request: GET /login, the app's first step (public). Not a whole login: the spec allows one session at a
 * time, and the soak's API reader holds it.
 */
const REQUEST = '{"path":"/login","method":"GET","messageID":"soak"}';

export function soakPhone(c: SoakController, random: () => number): SoakPhone {
  const between = ([a, b]: readonly [number, number]) => a + random() * (b - a);
  let nextVisit = performance.now() + between(VISIT_GAP_MS);
  /** The last request's start and end: the link's last activity lies between them. */
  let lastRequest: { from: number; to: number } | undefined;
  let checkWanted = false;
  const counts = { visits: 0, requests: 0, failed: 0, checks: 0, checksFailed: 0 };
  return {
    async visitIfDue() {
      if (performance.now() < nextVisit || !c.pid) return;
      counts.visits++;
      const requests = 1 + Math.floor(random() * 3);
      for (let i = 0; i < requests; i++) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
        const from = performance.now();
        counts.requests++;
        try {
          const view = (await c.sim('/phone', { request: REQUEST })) as unknown as { nfc?: { answer?: string } };
          if (!/"statusCode":200\b/.test(view.nfc?.answer ?? '')) counts.failed++;
        } catch {
          counts.failed++;
        }
        lastRequest = { from, to: performance.now() };
      }
      checkWanted = counts.visits % 2 === 1;
      nextVisit = performance.now() + between(VISIT_GAP_MS);
    },
    inMinute: () => lastRequest !== undefined && performance.now() < lastRequest.to + NFC_IDLE_MS + MARGIN_MS,
    checkDue: () => checkWanted && lastRequest !== undefined && performance.now() < lastRequest.from + NFC_IDLE_MS - MARGIN_MS,
    // The link's last activity (the phone reading the answer) came after the request's start, so its minute ends
    // after `from + NFC_IDLE_MS`; a card read before that broke the rule.
    minuteBounds: () => ({ earliest: lastRequest!.from + NFC_IDLE_MS, latest: lastRequest!.to + NFC_IDLE_MS + READ_WITHIN_MS }),
    checked(at) {
      checkWanted = false;
      counts.checks++;
      const { earliest, latest } = this.minuteBounds();
      if (at < earliest || at > latest) counts.checksFailed++;
    },
    forget() {
      lastRequest = undefined;
      checkWanted = false;
    },
    counts: () => ({ ...counts }),
  };
}
