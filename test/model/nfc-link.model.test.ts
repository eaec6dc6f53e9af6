import { afterAll, describe, expect, it, test } from 'vitest';
import { createActor, SimulatedClock, transition, type InspectionEvent } from 'xstate';
import { decodeTextRecord, encodeTextRecord } from '../../drivers/nfc/ndef.js';
import { outstandingRefusal } from '../../services/nfc/mapping.js';
import type { SimulatedPhone } from '../../drivers/pn532/sim.js';
import type { ReaderHardware } from '../../drivers/types.js';
import { ANSWER_DEADLINE_MS, NFC_IDLE_MS, nfcLinkMachine, type NfcLinkEvent } from '../../machines/nfc-link.js';
import { loginProof } from '../../machines/secrets.js';
import { takenKey } from '../../machines/transitions.js';
import { MLE, nlenOf, type Type4State } from '../../machines/type4-tag.js';
import { settle, type ManualClock } from '../clock.js';
import { OPERATOR_PASSWORD, startHarness, type Harness } from '../harness.js';
import { parseAnswer } from '../nfc/nfc.js';
import { Type4TagSpec } from './invariants/type4-tag.js';
import { chosenBreak, CoverageRecorder, planPaths, timerNeverFires, writeReport, type ModelPath } from './model.js';

/**
 * Model-based tests of the NFC link (machines/nfc-link.ts with the Type 4 Tag of machines/type4-tag.ts): paths
 * generated from the machine, each executed on a fresh controller whose PN532 driver talks to the simulated chip
 * (drivers/pn532/sim.ts) over @serialport/binding-mock, with a simulated phone sending the model's APDUs one by one.
 *
 * The model's events:
 * - PHONE.ACTIVATED: a phone enters the field (RFID Mode set to hybrid through PATCH /v1/settings when it is RFID
 *   only); PHONE.RELEASED: it leaves; READER.CHECKING: RFID Mode set to RFID only through PATCH /v1/settings.
 * - APDU: bounded variants (SELECT application / CC / NDEF file, READ CC, READ NLEN, READ the whole message, UPDATE
 *   NLEN 0, UPDATE the body of one of three requests, UPDATE the NLEN that commits it, an unsupported instruction).
 *   The requests are real API requests: F = GET /login (a token), L = POST /login with a proof from the token the
 *   phone read last, S = POST /map with the session the phone read last. S writes to the database, which the test
 *   keeps busy (a held write transaction) so S's answer is late: that is how the 700 ms answer deadline is reached.
 * - ANSWER / REFUSED: produced by the controller itself (the message mapping) after a commit, so the model offers
 *   them only when the real system produces them and nothing else then: ANSWER right after a commit of F or L,
 *   REFUSED right after a commit while a request is outstanding, ANSWER of S while `late` (the test lets the
 *   database go). Their messages are the controller's real answers (checked by kind), so what the phone reads back
 *   is predicted byte for byte.
 * - Delayed transitions: the manual clock runs to 1 ms before the deadline (nothing may happen), then 1 ms more.
 *
 * Context bound: the Type 4 state holds a 32 KB file. The graph sees it abstracted to what guards, outcomes and the
 * offered events depend on: application selected, file selected, NLEN, and which known message starts at offset 2
 * (every write puts a whole message there and NLEN is 0 or that message's length, so reads of [0, 2 + NLEN) are
 * determined), whether a commit is still unanswered.
 *
 * After every step: the response APDU the phone received (or that it has none yet), the link state, the HMI
 * (`Reading card` while the link is established, GET /sim), the answer (API status and content by kind) when the
 * controller stores it and when the phone reads it back.
 */

type Kind = 'F' | 'L' | 'S';
const KINDS: Kind[] = ['F', 'L', 'S'];

type ModelEvent = NfcLinkEvent & { name?: string; kind?: Kind };

const hex = (b: Uint8Array | null | undefined) => (b ? Buffer.from(b).toString('hex') : null);
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/\s/g, ''), 'hex'));
const text = (s: string) => encodeTextRecord(s);

/** What the requests carry that only the running controller knows; placeholders of the same shape for planning. */
interface Secrets {
  token: string;
  session: string;
  key: string;
}
const PLACEHOLDER: Secrets = { token: '0'.repeat(32), session: '00000000-0000-4000-8000-000000000000', key: 'mbt000' };

function requestOf(kind: Kind, s: Secrets): Uint8Array {
  if (kind === 'F') return text(JSON.stringify({ path: '/login', method: 'GET', authorization: '', messageID: 'F' }));
  if (kind === 'L') {
    const body = { username: 'operator', password: loginProof(OPERATOR_PASSWORD, s.token) };
    return text(`${JSON.stringify({ path: '/login', method: 'POST', authorization: '', messageID: 'L' })},${JSON.stringify(body)}`);
  }
  return text(`${JSON.stringify({ path: '/map', method: 'POST', authorization: s.session, messageID: 'S' })},${JSON.stringify({ [s.key]: 'nfc' })}`);
}

/** Planning placeholders of the answers (the executor uses the controller's real ones). */
const PLANNED_ANSWER: Record<Kind, Uint8Array> = {
  F: text(`{"messageID":"F","statusCode":200},{"token":"${PLACEHOLDER.token}"}`),
  L: text(`{"messageID":"L","statusCode":200},{"logged_in":true,"session":{"id":"${PLACEHOLDER.session}"}}`),
  S: text('{"messageID":"S","statusCode":201}'),
};
const PLANNED_REFUSAL = Object.fromEntries(KINDS.map((k) => [k, outstandingRefusal(requestOf(k, PLACEHOLDER))])) as Record<Kind, Uint8Array>;
const PLANNED_REQUEST = Object.fromEntries(KINDS.map((k) => [k, requestOf(k, PLACEHOLDER)])) as Record<Kind, Uint8Array>;

/** Which known message starts at offset 2 of the file (planning abstraction). */
const KNOWN_RECORDS: Array<[string, Uint8Array]> = [
  ...KINDS.map((k): [string, Uint8Array] => [`request ${k}`, PLANNED_REQUEST[k]]),
  ...KINDS.map((k): [string, Uint8Array] => [`answer ${k}`, PLANNED_ANSWER[k]]),
  ...KINDS.map((k): [string, Uint8Array] => [`refusal ${k}`, PLANNED_REFUSAL[k]]),
];
function recordAt(tag: Type4State): string {
  for (const [name, m] of KNOWN_RECORDS) if (m.every((b, i) => tag.ndef[2 + i] === b)) return name;
  if (tag.ndef.subarray(2, 260).every((b) => b === 0)) return 'empty';
  throw new Error(`unknown file content ${hex(tag.ndef.subarray(0, 40))}`);
}

// Command APDUs.
const SELECT_APP = bytes('00A4040007D2760000850101 00');
const SELECT_CC = bytes('00A4000C02E103');
const SELECT_NDEF = bytes('00A4000C02E104');
const READ_CC = bytes('00B000000F');
const READ_NLEN = bytes('00B0000002');
const WRITE_START = bytes('00D60000020000');
const UNSUPPORTED = bytes('00CA000000');
const readMessage = (nlen: number) => Uint8Array.of(0x00, 0xb0, 0x00, 0x02, nlen);
const writeBody = (m: Uint8Array) => Uint8Array.of(0x00, 0xd6, 0x00, 0x02, m.length, ...m);
const commitOf = (m: Uint8Array) => Uint8Array.of(0x00, 0xd6, 0x00, 0x00, 0x02, m.length >> 8, m.length & 0xff);

const DEADLINE = { type: 'xstate.after.answerDeadline.nfcLink.established.exchange.pending.held' } as unknown as ModelEvent;
const IDLE = { type: 'xstate.after.idle.nfcLink.established.activity.watching' } as unknown as ModelEvent;
const apdu = (name: string, a: Uint8Array, kind?: Kind): ModelEvent => ({ type: 'APDU', apdu: a, name, ...(kind ? { kind } : {}) });

type LinkSnapshot = ReturnType<typeof transition<typeof nfcLinkMachine>>[0];

/** A commit the link has not acknowledged yet (its `90 00` is held, or a refusal is on its way). */
const unacked = (s: LinkSnapshot) => s.context.reply === null && s.context.outcome?.type === 'commit';
const kindOfRequestAt = (s: LinkSnapshot): Kind => recordAt(s.context.tag).replace('request ', '') as Kind;

/** The events of the model (see the header): what the real system can be made to do, or does by itself, now. */
function modelEvents(s: LinkSnapshot): ModelEvent[] {
  if (s.matches('checking')) return [{ type: 'PHONE.ACTIVATED' }];
  const held = s.matches({ established: { exchange: { pending: 'held' } } });
  const pending = s.matches({ established: { exchange: 'pending' } });
  if (unacked(s)) {
    const kind = kindOfRequestAt(s);
    // The reader waits for the held response, so the phone can neither send nor be seen leaving (see UNREACHABLE).
    if (held) return kind === 'S' ? [DEADLINE] : [{ type: 'ANSWER', message: PLANNED_ANSWER[kind], kind }];
    return [{ type: 'REFUSED', message: PLANNED_REFUSAL[kind], kind }];
  }
  const events: ModelEvent[] = [];
  if (s.matches({ established: { phone: 'listening' } })) events.push({ type: 'PHONE.ACTIVATED' });
  else {
    const { tag } = s.context;
    events.push(
      apdu('SELECT app', SELECT_APP),
      apdu('SELECT CC', SELECT_CC),
      apdu('SELECT NDEF', SELECT_NDEF),
      apdu('READ CC', READ_CC),
      apdu('READ NLEN', READ_NLEN),
    );
    events.push(apdu('UPDATE NLEN 0', WRITE_START), apdu('unsupported', UNSUPPORTED));
    if (tag.file === 'ndef') {
      const nlen = nlenOf(tag.ndef);
      if (nlen > 0) events.push(apdu('READ message', readMessage(nlen)));
      const record = recordAt(tag);
      // L needs the token the phone read last, S the session: their bodies follow those answers.
      const writable: Kind[] = ['F', ...(record === 'answer F' ? (['L'] as const) : []), ...(record === 'answer L' ? (['S'] as const) : [])];
      for (const k of writable) events.push(apdu(`UPDATE body ${k}`, writeBody(PLANNED_REQUEST[k]), k));
      if (record.startsWith('request ')) {
        const k = kindOfRequestAt(s);
        events.push(apdu(`UPDATE NLEN ${k} (commit)`, commitOf(PLANNED_REQUEST[k]), k));
      }
    }
    if (!held) events.push({ type: 'PHONE.RELEASED' });
  }
  // RFID Mode is a settings write, which would wait for the database the test holds while S is outstanding.
  if (!pending) events.push({ type: 'READER.CHECKING' });
  if (s.matches({ established: { exchange: { pending: 'late' } } })) events.push({ type: 'ANSWER', message: PLANNED_ANSWER.S, kind: 'S' });
  events.push(IDLE);
  return events;
}

const serializeState = (s: LinkSnapshot) =>
  JSON.stringify([s.value, s.context.tag.appSelected, s.context.tag.file, nlenOf(s.context.tag.ndef), recordAt(s.context.tag), unacked(s)]);

/**
 * Transitions no real interface can take, each with why; test 'unreachable through the reader' below takes them on
 * the machine alone.
 */
const UNREACHABLE = {
  'established.exchange.pending.held | PHONE.RELEASED |  | established.exchange.pending.late':
    'while a commit is held the reader waits for its response and sees a phone leave only at the next TgSetData, after the deadline',
};

const planned = planPaths(nfcLinkMachine, { events: modelEvents as never, serializeState, unreachable: UNREACHABLE });
/** Paths end where the controller rests: a path ending on a commit also takes the answer or refusal that follows. */
const extended = planned.paths.map((p) => {
  const steps = [...p.steps];
  for (
    let s = steps.at(-1)!.state as LinkSnapshot, events = modelEvents(s);
    unacked(s) && events.length === 1 && events[0] !== DEADLINE;
    events = modelEvents(s)
  ) {
    s = transition(nfcLinkMachine, s, events[0] as never)[0];
    steps.push({ event: events[0]!, state: s });
  }
  return { ...p, steps } as ModelPath<ModelEvent>;
});
// Extending can make two paths the same: keep one.
const paths = extended.filter((p, i) => extended.findIndex((q) => describePath(q) === describePath(p)) === i);

/** Deliberately broken reader or timers (MBT_BREAK), to show the suite catches real faults. */
const BREAKS: Record<string, (hw: ReaderHardware, clock: ManualClock) => ReaderHardware> = {
  'release-never-reported': (hw) => ({ ...hw, nfc: { ...hw.nfc!, onReleased: () => () => undefined } }),
  'ok-status-never-sent': (hw) => ({ ...hw, nfc: { ...hw.nfc!, respond: (r) => (r.length === 2 && r[0] === 0x90 ? undefined : hw.nfc!.respond(r)) } }),
  'answer-deadline-never-fires': (hw, clock) => {
    timerNeverFires(clock, ANSWER_DEADLINE_MS);
    return hw;
  },
};
const broken = chosenBreak(BREAKS);

const coverage = new CoverageRecorder();

function describePath(path: ModelPath<ModelEvent>): string {
  return path.steps
    .slice(1)
    .map(({ event }) => event.name ?? (event.kind ? `${event.type} ${event.kind}` : event.type.replace(/^xstate\.after\.(\w+)\..*$/, 'after $1')))
    .join(' → ');
}

/** What the executor observes of the controller's NFC link actor through the inspection stream. */
class LinkObserver {
  events: Array<{ type: string; at: number; message?: Uint8Array }> = [];
  constructor(private readonly clock: () => number) {}
  readonly inspect = (e: InspectionEvent) => {
    if (e.type !== '@xstate.event' || (e.actorRef as { id?: string }).id !== 'nfcLink') return;
    const event = (e as unknown as { event: { type: string; message?: Uint8Array } }).event;
    this.events.push({ type: event.type, at: this.clock(), ...(event.message ? { message: event.message } : {}) });
  };
  count(type: string) {
    return this.events.filter((e) => e.type === type).length;
  }
  last(types: string[]) {
    return [...this.events].reverse().find((e) => types.includes(e.type));
  }
}

/** The answer the controller must have stored for a request of `kind` (or the refusal of one). */
function checkAnswer(at: string, message: Uint8Array, kind: Kind, refused: boolean): void {
  const answer = parseAnswer(decodeTextRecord(message));
  if (refused) {
    expect({ at, messageID: answer.messageID, statusCode: answer.statusCode, cause: answer.content?.cause }).toEqual({
      at,
      messageID: kind,
      statusCode: 400,
      cause: expect.stringMatching(/^One NFC request at a time/),
    });
  } else if (kind === 'F')
    expect({ at, answer: answer.text }).toEqual({ at, answer: expect.stringMatching(/^\{"messageID":"F","statusCode":200\},\{"token":"[0-9a-f]{32}"\}$/) });
  else if (kind === 'L')
    expect({ at, messageID: answer.messageID, statusCode: answer.statusCode, session: answer.content?.session?.id }).toEqual({
      at,
      messageID: 'L',
      statusCode: 200,
      session: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  else expect({ at, answer: answer.text }).toEqual({ at, answer: '{"messageID":"S","statusCode":201}' });
}

let keyCounter = 0;

describe(`NFC link, ${paths.length} generated paths${broken ? ` against broken: ${broken}` : ''}`, () => {
  it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_name, path) => {
    let clockRef: ManualClock | undefined;
    const observer = new LinkObserver(() => clockRef?.now() ?? 0);
    const h: Harness = await startHarness({
      inspect: (e) => (coverage.inspect(e), observer.inspect(e)),
      ...(broken ? { reader: BREAKS[broken] } : {}),
    });
    clockRef = h.clock;
    const plant = h.controller.simulator!;
    const secrets: Secrets = { ...PLACEHOLDER, key: `mbt${String(++keyCounter).padStart(3, '0')}` };
    let phone: SimulatedPhone | undefined;
    let inflight: { done: boolean; response?: Uint8Array } | undefined;
    let gate: { open(): void; held: Promise<unknown> } | undefined;
    let lastCommit: Kind | undefined;
    /** What the answer in the file answers. */
    let stored: { kind: Kind; refused: boolean } | undefined;
    let consumed = { ANSWER: 0, REFUSED: 0 };
    /** The independent oracle of each response APDU (invariants/type4-tag.ts), and the command it answers. */
    const t4t = new Type4TagSpec();
    let lastCommand: Uint8Array | undefined;
    const until = async (cond: () => boolean, what: string) => {
      for (let i = 0; i < 300 && !cond(); i++) await settle(1);
      if (!cond()) throw new Error(`the controller never got to: ${what}`);
    };
    const releaseGate = async () => {
      if (!gate) return;
      gate.open();
      await gate.held;
      gate = undefined;
    };
    const setRfidMode = async (value: 0 | 1) => {
      const session = await h.login();
      const res = await h.http('PATCH', '/v1/settings', { session, body: { params: [{ key: 'RFIDMode', value }] } });
      expect(res.status).toBe(200);
    };
    /** The real APDU for a model APDU, built from the executor's model (real token, session, answers). */
    const realApdu = (event: ModelEvent, model: LinkSnapshot): Uint8Array => {
      if (event.name === 'READ message') return readMessage(nlenOf(model.context.tag.ndef));
      if (event.name?.startsWith('UPDATE body')) return writeBody(requestOf(event.kind!, secrets));
      if (event.name?.startsWith('UPDATE NLEN') && event.kind) return commitOf(requestOf(event.kind, secrets));
      return (event as { apdu: Uint8Array }).apdu;
    };
    try {
      let model = path.steps[0]!.state as LinkSnapshot;
      const steps = path.steps.slice(1);
      for (const [i, step] of steps.entries()) {
        let event = step.event as ModelEvent;
        const at = `step ${i + 1}: ${event.name ?? event.type}${event.kind ? ` ${event.kind}` : ''}`;
        const type = event.type as string;
        const before = model;
        if (type === 'PHONE.ACTIVATED') {
          t4t.activated();
          t4t.fileRewritten(); // a new link starts with an empty file; a returning phone may find its unread answer
          if (h.controller.nfc.rfidMode() !== 'hybrid') await setRfidMode(1);
          if (phone && !phone.gone) phone.leave();
          const activations = observer.count('PHONE.ACTIVATED');
          phone = plant.nfcPhone();
          inflight = undefined;
          // The phone is activated at the reader's next target turn (at once when the reader holds target mode).
          for (let n = 0; n < 30 && observer.count('PHONE.ACTIVATED') === activations; n++) await h.step(100);
          expect({ at, activated: observer.count('PHONE.ACTIVATED') > activations }).toEqual({ at, activated: true });
        } else if (type === 'PHONE.RELEASED') {
          await until(() => phone!.awaitingCommand, 'the chip waiting for the phone');
          const n = observer.count('PHONE.RELEASED');
          phone!.leave();
          await until(() => observer.count('PHONE.RELEASED') > n, 'the release reported');
        } else if (type === 'READER.CHECKING') {
          await setRfidMode(0);
        } else if (type === 'APDU') {
          const real = realApdu(event, model);
          lastCommand = real;
          event = { ...event, apdu: real } as ModelEvent;
          if (event.name?.startsWith('UPDATE NLEN') && event.kind) {
            lastCommit = event.kind;
            // S writes to the database: keep it busy so the answer is late (a held write transaction).
            if (event.kind === 'S' && !model.matches({ established: { exchange: 'pending' } }) && !model.matches({ established: { exchange: 'answering' } })) {
              let open!: () => void;
              const opened = new Promise<void>((resolve) => (open = resolve));
              gate = { open, held: h.controller.database.write(() => opened) };
            }
          }
          expect({ at, inflight: Boolean(inflight && !inflight.done) }).toEqual({ at, inflight: false });
          await until(() => phone!.awaitingCommand, 'the chip waiting for the phone');
          const apdus = observer.count('APDU');
          const flight: { done: boolean; response?: Uint8Array } = { done: false };
          inflight = flight;
          void phone!.transceive(real).then((r) => Object.assign(flight, { done: true, response: r }));
          await until(() => observer.count('APDU') > apdus, 'the APDU reaching the link');
        } else if (type === 'ANSWER' || type === 'REFUSED') {
          if (type === 'ANSWER' && model.matches({ established: { exchange: { pending: 'late' } } })) await releaseGate();
          const key = type as 'ANSWER' | 'REFUSED';
          await until(() => observer.count(key) > consumed[key], `the ${key}`);
          consumed = { ...consumed, [key]: consumed[key] + 1 };
          const message = observer.events.filter((e) => e.type === key)[consumed[key] - 1]!.message!;
          const kind =
            type === 'ANSWER' && model.matches({ established: { exchange: { pending: 'late' } } }) ? 'S' : type === 'REFUSED' ? lastCommit! : event.kind!;
          checkAnswer(at, message, kind, type === 'REFUSED');
          // A refusal is shown only while no answer is unread (in `answering` the unread answer is shown again).
          if (!(type === 'REFUSED' && model.matches({ established: { exchange: 'answering' } }))) stored = { kind, refused: type === 'REFUSED' };
          if (type === 'ANSWER' && kind === 'F') secrets.token = parseAnswer(decodeTextRecord(message)).content.token;
          if (type === 'ANSWER' && kind === 'L') secrets.session = parseAnswer(decodeTextRecord(message)).content.session.id;
          event = { ...event, message } as ModelEvent;
        } else if (type === DEADLINE.type) {
          const due = observer.last(['APDU'])!.at + ANSWER_DEADLINE_MS;
          await h.step(due - 1 - h.clock.now());
          expect({ at, before: h.controller.nfc.linkState(), response: inflight?.done }).toEqual({ at, before: model.value, response: false });
          await h.step(1);
        } else if (type === IDLE.type) {
          const due = observer.last(['APDU', 'PHONE.ACTIVATED'])!.at + NFC_IDLE_MS;
          await h.step(due - 1 - h.clock.now());
          expect({ at, before: h.controller.nfc.linkState() }).toEqual({ at, before: model.value });
          await h.step(1);
          // The link has let go of the request S was waiting for; its answer, arriving now, changes nothing.
          await releaseGate();
          await h.controller.nfc.settled();
        }

        const [next, actions] = transition(nfcLinkMachine, model, event as never);
        model = next;
        const sent = actions.some((a) => a.type === 'respond') && model.context.reply !== null;
        // A commit whose answer or refusal the controller produces by itself: check once that has happened.
        const following = steps[i + 1]?.event.type;
        if (unacked(model) && (following === 'ANSWER' || following === 'REFUSED')) continue;

        if (sent) {
          await until(() => inflight?.done === true, 'the response reaching the phone');
          expect({ at, response: hex(inflight!.response) }).toEqual({ at, response: hex(model.context.reply) });
          expect({ at, broken: t4t.answer(lastCommand!, inflight!.response!) }).toEqual({ at, broken: [] });
          inflight = undefined;
        }
        // The controller put an answer, a refusal or an empty NLEN in the file.
        if (type === 'ANSWER' || type === 'REFUSED' || type === DEADLINE.type) t4t.fileRewritten();
        const phoneThere = model.matches({ established: { phone: 'activated' } }) || model.matches({ established: { phone: 'selected' } });
        if (phoneThere && !model.matches({ established: { exchange: { pending: 'held' } } }))
          await until(() => phone!.awaitingCommand, 'the chip waiting for the phone');
        await settle(3);
        if (!sent) expect({ at, response: inflight?.done ? hex(inflight.response) : null }).toEqual({ at, response: null });
        // The answer read back by the phone when its request completes.
        if (before.matches({ established: { exchange: 'answering' } }) && model.matches({ established: { exchange: 'idle' } })) {
          checkAnswer(`${at} (read back)`, model.context.reply!.subarray(0, -2), stored!.kind, stored!.refused);
        }
        const established = !model.matches('checking');
        const view = (await h.http('GET', '/sim')).json;
        expect({ at, link: h.controller.nfc.linkState(), hmi: view.hmi, leds: view.plant.leds }).toEqual({
          at,
          link: model.value,
          hmi: established ? 'Reading card' : 'Available',
          leds: established ? { color: 'white', mode: 'fast-blink' } : { color: 'green', mode: 'steady' },
        });
      }
    } finally {
      await releaseGate();
      phone?.leave();
      await h.stop();
    }
  });
});

describe('NFC link transitions unreachable through the reader, on the machine alone', () => {
  test.each(Object.entries(UNREACHABLE))('%s', (key) => {
    const taken = new Set<string>();
    const actor = createActor(nfcLinkMachine, {
      clock: new SimulatedClock(),
      inspect: (e) => {
        if (e.type === '@xstate.microstep') for (const t of (e as any)._transitions) taken.add(takenKey(t));
      },
    });
    actor.start();
    actor.send({ type: 'PHONE.ACTIVATED' });
    actor.send({ type: 'APDU', apdu: SELECT_APP });
    if (key.startsWith('established.phone.selected')) {
      actor.send({ type: 'APDU', apdu: SELECT_NDEF });
      actor.send({ type: 'PHONE.ACTIVATED' });
      expect(actor.getSnapshot().matches({ established: { phone: 'activated' } })).toBe(true);
      // A new activation: nothing selected (69 86), the application first (6A 82), as the oracle expects too.
      const t4t = new Type4TagSpec();
      t4t.activated();
      for (const [command, answer] of [
        [READ_NLEN, '6986'],
        [SELECT_CC, '6a82'],
      ] as const) {
        actor.send({ type: 'APDU', apdu: command });
        expect(hex(actor.getSnapshot().context.reply)).toBe(answer);
        expect(t4t.answer(command, actor.getSnapshot().context.reply)).toEqual([]);
      }
    } else {
      actor.send({ type: 'APDU', apdu: SELECT_NDEF });
      actor.send({ type: 'APDU', apdu: writeBody(PLANNED_REQUEST.F) });
      actor.send({ type: 'APDU', apdu: commitOf(PLANNED_REQUEST.F) });
      actor.send({ type: 'PHONE.RELEASED' });
      expect(actor.getSnapshot().matches({ established: { exchange: { pending: 'late' }, phone: 'listening' } })).toBe(true);
    }
    expect([...taken]).toContain(key);
    actor.stop();
  });
});

/**
 * The oracle over every candidate path (each reachable state and abstract context, then each event possible there)
 * on the machine alone: every response APDU the link sends is a valid answer to the command it answers.
 */
describe(`NFC link alone against the ISO 7816-4 / T4T oracle, ${planned.candidates.length} paths`, () => {
  test('every response APDU answers its command', () => {
    const failures: string[] = [];
    for (const path of planned.candidates) {
      let model = path.steps[0]!.state as LinkSnapshot;
      const t4t = new Type4TagSpec();
      let command: Uint8Array | undefined;
      const broken: string[] = [];
      for (const step of path.steps.slice(1)) {
        const event = step.event as ModelEvent;
        if (event.type === 'PHONE.ACTIVATED') {
          t4t.activated();
          t4t.fileRewritten();
        }
        if (event.type === 'APDU') command = event.apdu;
        const [next, actions] = transition(nfcLinkMachine, model, event as never);
        model = next;
        if (actions.some((a) => a.type === 'respond') && model.context.reply !== null) broken.push(...t4t.answer(command!, model.context.reply));
        if (event.type === 'ANSWER' || event.type === 'REFUSED' || event.type === DEADLINE.type || event.type === 'PHONE.RELEASED') t4t.fileRewritten();
      }
      if (broken.length) failures.push(`${describePath(path as ModelPath<ModelEvent>)}: ${broken.join('; ')}`);
    }
    expect(failures.slice(0, 5), `${failures.length} of ${planned.candidates.length} paths`).toEqual([]);
  });
});

afterAll(() => {
  if (broken) return;
  const report = coverage.report('nfcLink', nfcLinkMachine, paths.length, UNREACHABLE);
  writeReport(report);
  expect(report.states.missing, 'NFC link states no path reached').toEqual([]);
  expect(report.transitions.missing, 'NFC link transitions no path took').toEqual([]);
});

// MLE bounds a one-APDU read of a whole message: every message of the model fits.
for (const m of [...Object.values(PLANNED_ANSWER), ...Object.values(PLANNED_REFUSAL), ...Object.values(PLANNED_REQUEST)])
  if (m.length > MLE) throw new Error('a model message longer than MLe');
