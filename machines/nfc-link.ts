import { assign, raise, setup } from 'xstate';
import { initialType4State, nlenOf, processApdu, statusWord, SW, withMessage, type Type4Outcome, type Type4State } from './type4-tag.js';

/** After this long without a phone's activity the reader returns to RFID/NFC checking (spec 1, spec 8). */
export const NFC_IDLE_MS = 60_000;
/**
 * The committing NLEN write is answered once the answer is in the file, so the phone reads it right away; Android
 * gives an APDU about 1 s, so after this long the write is acknowledged anyway and the answer follows in the file.
 */
export const ANSWER_DEADLINE_MS = 700;

export interface NfcLinkContext {
  tag: Type4State;
  /** The response APDU `respond` sends: to the last APDU, or the held `90 00` of a commit; null = none now. */
  reply: Uint8Array | null;
  /** What the last APDU meant (type4-tag.ts). */
  outcome: Type4Outcome | null;
  /** The last answer put in the file, shown again while it is unread (a phone's write may have overwritten it). */
  answer: Uint8Array | null;
}

export type NfcLinkEvent =
  /** A phone activated the emulated tag (TgInitAsTarget answered). */
  | { type: 'PHONE.ACTIVATED' }
  /** The phone released the tag or left the field (status 0x29 / 0x2B). */
  | { type: 'PHONE.RELEASED' }
  /** The next command APDU from the phone; the actor answers it through `respond` exactly once. */
  | { type: 'APDU'; apdu: Uint8Array }
  /** The answer message to the outstanding request (from `submit`). */
  | { type: 'ANSWER'; message: Uint8Array }
  /** The refusal of a request committed while another was outstanding (from `refuse`). */
  | { type: 'REFUSED'; message: Uint8Array }
  /** The reader left target mode on its own (RFID Mode set to RFID only). */
  | { type: 'READER.CHECKING' }
  // Raised by the actor itself from what an APDU meant (type4-tag.ts outcomes).
  | { type: 'TAG.APP_SELECTED' }
  | { type: 'TAG.WRITE_STARTED' }
  | { type: 'TAG.COMMIT'; message: Uint8Array }
  | { type: 'TAG.MESSAGE_READ' }
  /** An APDU that meant nothing beyond its answer. */
  | { type: 'TAG.ANSWERED' }
  /** The phone did something (raised for every APDU): the idle minute starts again. */
  | { type: 'ACTIVITY' };

const OK = statusWord(SW.ok);

/**
 * The NFC link: Type 4 Tag emulation for the phone and the one-request-at-a-time exchange of the message mapping.
 *
 * - `checking`: the reader checks for RFID cards (and, in hybrid mode, phones). A phone activating the emulated tag
 *   establishes the link: `Reading card` is shown while it lasts, the reader stays in target mode.
 * - `established.phone`: `listening` (no phone; it may come back), `activated`, `selected` (NDEF application).
 *   Every activation starts with nothing selected (ISO 7816-4: the selection ends with the session); the file's
 *   content is kept.
 * - `established.exchange`: `idle`, `writing` (NLEN zeroed), `pending` (a request was committed and is being
 *   answered; the commit's status word is held until the answer is in the file, at most ANSWER_DEADLINE_MS),
 *   `answering` (the answer is in the file until the phone has read it). A request committed while another is
 *   pending or its answer unread is refused (`refuse`), never passed on. An unread answer stays readable until the
 *   phone has read it: a refused commit and a new activation put it back in the file (the phone's write overwrote
 *   it), so a phone that lost its read and sends its request again gets the first answer; only while the answer is
 *   still pending does the file show the refusal (until the answer replaces it).
 * - `established.activity`: NFC_IDLE_MS without activity → back to `checking` (`resumeChecking`, HMI back).
 *
 * Effects are provided from outside: `respond` (the response APDU to the phone), `submit` (hand a request message to
 * the message mapping, which answers with ANSWER), `refuse` (answers with REFUSED), `showReading`, `hideReading`,
 * `resumeChecking`.
 */
export const nfcLinkMachine = setup({
  types: { context: {} as NfcLinkContext, events: {} as NfcLinkEvent },
  actions: {
    /** Sends `context.reply` to the phone; null: nothing to send now (a held commit). Provided from outside. */
    respond: () => {},
    submit: (_, _params: { message: Uint8Array }) => {},
    refuse: (_, _params: { message: Uint8Array }) => {},
    showReading: () => {},
    hideReading: () => {},
    resumeChecking: () => {},
    resetTag: assign({ tag: () => initialType4State(), reply: null, outcome: null, answer: null }),
    /** A new activation: no application or file selected; the file's content stays. */
    clearSelection: assign({ tag: ({ context }) => ({ ...context.tag, appSelected: false, file: null }) }),
    /** Answers the APDU into `reply` (null for a commit: held) and keeps what it meant for `raiseOutcome`. */
    handleApdu: assign(({ context, event }) => {
      if (event.type !== 'APDU') return {};
      const result = processApdu(context.tag, event.apdu);
      return { tag: result.state, reply: result.response, outcome: result.outcome ?? null };
    }),
    /** Raises what the last APDU meant, for the exchange and phone regions. */
    raiseOutcome: raise(({ context }): NfcLinkEvent => {
      const outcome = context.outcome;
      switch (outcome?.type) {
        case 'app-selected':
          return { type: 'TAG.APP_SELECTED' };
        case 'write-started':
          return { type: 'TAG.WRITE_STARTED' };
        case 'commit':
          return { type: 'TAG.COMMIT', message: outcome.message };
        case 'message-read':
          return { type: 'TAG.MESSAGE_READ' };
        default:
          return { type: 'TAG.ANSWERED' };
      }
    }),
    noteActivity: raise({ type: 'ACTIVITY' }),
    /** The held commit is acknowledged. */
    acknowledge: assign({ reply: OK }),
    /** The answer (or refusal) replaces the file content; an answer is also kept to be shown again while unread. */
    storeAnswer: assign(({ context, event }) => {
      if (event.type === 'ANSWER') return { tag: withMessage(context.tag, event.message), answer: event.message };
      if (event.type === 'REFUSED') return { tag: withMessage(context.tag, event.message) };
      return {};
    }),
    /** The unread answer back in the file. */
    restoreAnswer: assign({ tag: ({ context }) => (context.answer ? withMessage(context.tag, context.answer) : context.tag) }),
    /** The file shows no message (NLEN 0) until the answer arrives, so the phone never reads back its own request. */
    emptyFile: assign({
      tag: ({ context }) => {
        // Stryker disable next-line ConditionalExpression: zeroing an NLEN that is already 0 gives a file of the same bytes.
        if (nlenOf(context.tag.ndef) === 0) return context.tag;
        // the file is this context's own (every UPDATE BINARY and every
        // answer put there make a new one), nothing else reads the old one.
        // Stryker disable next-line MethodExpression: see above
        const ndef = context.tag.ndef.slice();
        ndef[0] = 0;
        ndef[1] = 0;
        return { ...context.tag, ndef };
      },
    }),
  },
  delays: { idle: NFC_IDLE_MS, answerDeadline: ANSWER_DEADLINE_MS },
}).createMachine({
  id: 'nfcLink',
  context: { tag: initialType4State(), reply: null, outcome: null, answer: null },
  initial: 'checking',
  states: {
    checking: {
      on: { 'PHONE.ACTIVATED': 'established' },
    },
    established: {
      type: 'parallel',
      entry: ['resetTag', 'showReading'],
      exit: ['hideReading', 'resumeChecking'],
      on: {
        APDU: { actions: ['handleApdu', 'respond', 'raiseOutcome', 'noteActivity'] },
        'READER.CHECKING': 'checking',
      },
      states: {
        phone: {
          initial: 'activated',
          // Every activation starts with nothing selected.
          on: { 'PHONE.RELEASED': '.listening', 'PHONE.ACTIVATED': { target: '.activated', actions: 'clearSelection' } },
          states: {
            listening: {},
            activated: { on: { 'TAG.APP_SELECTED': 'selected' } },
            selected: {},
          },
        },
        exchange: {
          initial: 'idle',
          // A committed request is submitted, unless the state has a rule of its own (one is outstanding: refused).
          on: {
            'TAG.COMMIT': {
              target: '.pending',
              actions: { type: 'submit', params: ({ event }: { event: { message: Uint8Array } }) => ({ message: event.message }) },
            },
          },
          states: {
            idle: { on: { 'TAG.WRITE_STARTED': 'writing' } },
            writing: {},
            pending: {
              initial: 'held',
              on: {
                'TAG.COMMIT': { actions: { type: 'refuse', params: ({ event }: { event: { message: Uint8Array } }) => ({ message: event.message }) } },
                REFUSED: { actions: ['storeAnswer', 'acknowledge', 'respond'] },
              },
              states: {
                held: {
                  after: { answerDeadline: { target: 'late', actions: ['emptyFile', 'acknowledge', 'respond'] } },
                  on: {
                    ANSWER: { target: '#nfcLink.established.exchange.answering', actions: ['storeAnswer', 'acknowledge', 'respond'] },
                    'PHONE.RELEASED': { target: 'late', actions: 'emptyFile' },
                  },
                },
                late: {
                  on: { ANSWER: { target: '#nfcLink.established.exchange.answering', actions: 'storeAnswer' } },
                },
              },
            },
            answering: {
              on: {
                'TAG.MESSAGE_READ': 'idle',
                'TAG.COMMIT': { actions: { type: 'refuse', params: ({ event }: { event: { message: Uint8Array } }) => ({ message: event.message }) } },
                // The refusal is not shown: the unread answer is (its messageID tells the phone which request it answers).
                REFUSED: { actions: ['restoreAnswer', 'acknowledge', 'respond'] },
                'PHONE.ACTIVATED': { actions: 'restoreAnswer' },
              },
            },
          },
        },
        activity: {
          initial: 'watching',
          states: {
            watching: {
              after: { idle: '#nfcLink.checking' },
              on: {
                ACTIVITY: { target: 'watching', reenter: true },
                'PHONE.ACTIVATED': { target: 'watching', reenter: true },
              },
            },
          },
        },
      },
    },
  },
});
