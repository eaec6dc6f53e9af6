import { describe, expect, test } from 'vitest';
import { ANSWER_DEADLINE_MS, NFC_IDLE_MS } from '../../machines/nfc-link.js';
import { CAPABILITY_CONTAINER, initialType4State, MAX_NDEF_MESSAGE, processApdu, withMessage } from '../../machines/type4-tag.js';
import { apdu, hex, startLink } from './link-actor.js';

const SELECT_APP = '00A4040007D2760000850101 00';
const SELECT_CC = '00A4000C02E103';
const SELECT_NDEF = '00A4000C02E104';

describe('Type 4 Tag emulation', () => {
  const run = (...cmds: string[]) => {
    let state = initialType4State();
    const out: Array<string | null> = [];
    for (const c of cmds) {
      const r = processApdu(state, apdu(c));
      state = r.state;
      out.push(hex(r.response));
    }
    return { out, state };
  };

  test('the read procedure: select the application, read the capability container and the NLEN', () => {
    const { out } = run(SELECT_APP, SELECT_CC, '00B000000F', SELECT_NDEF, '00B0000002');
    expect(out).toEqual(['9000', '9000', hex(CAPABILITY_CONTAINER) + '9000', '9000', '00009000']);
    expect(hex(CAPABILITY_CONTAINER)).toBe('000f2000f600f60406e1047fff0000');
  });

  test('status words: unknown application, file before application, no file, class, instruction, lengths, offsets, read-only CC', () => {
    expect(run('00A4040007D2760000850102').out).toEqual(['6a82']);
    expect(run(SELECT_CC).out).toEqual(['6a82']);
    expect(run(SELECT_APP, '00A4000C02E105').out).toEqual(['9000', '6a82']);
    expect(run(SELECT_APP, '00B0000002').out).toEqual(['9000', '6986']);
    expect(run('80A4040007D2760000850101').out).toEqual(['6e00']);
    expect(run('00CA000000').out).toEqual(['6d00']);
    expect(run('00A4').out).toEqual(['6700']);
    expect(run(SELECT_APP, '00A4020C02E103').out).toEqual(['9000', '6a86']);
    expect(run(SELECT_APP, SELECT_CC, '00B00000F7').out).toEqual(['9000', '9000', '6700']); // Le > MLe
    expect(run(SELECT_APP, SELECT_CC, '00B000100F').out).toEqual(['9000', '9000', '6b00']);
    // Reading past the end: the bytes there are, with 62 82 (end of file reached before Le bytes).
    expect(run(SELECT_APP, SELECT_CC, '00B0000A0F').out).toEqual(['9000', '9000', `${hex(CAPABILITY_CONTAINER.subarray(10))}6282`]);
    expect(run(SELECT_APP, SELECT_CC, '00D60000020000').out).toEqual(['9000', '9000', '6982']);
    expect(run(SELECT_APP, SELECT_NDEF, '00D600000300').out).toEqual(['9000', '9000', '6700']); // Lc ≠ data
    expect(run(SELECT_APP, SELECT_NDEF, '00D6800000').out).toEqual(['9000', '9000', '6700']); // no data
  });

  test('the write procedure: NLEN 0 starts, the data follows, the non-zero NLEN commits (its answer is held)', () => {
    let state = run(SELECT_APP, SELECT_NDEF).state;
    let r = processApdu(state, apdu('00D60000020000'));
    expect([hex(r.response), r.outcome]).toEqual(['9000', { type: 'write-started' }]);
    r = processApdu(r.state, apdu('00D6000203D10100'));
    expect([hex(r.response), r.outcome]).toEqual(['9000', undefined]);
    r = processApdu(r.state, apdu('00D60000020003'));
    expect(r.response).toBeNull();
    expect(r.outcome).toEqual({ type: 'commit', message: apdu('D10100') });
    // Reading the message to its end is reported.
    state = r.state;
    r = processApdu(state, apdu('00B0000203'));
    expect([hex(r.response), r.outcome]).toEqual(['d101009000', { type: 'message-read' }]);
  });

  test('never throws on any APDU', async () => {
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 260 }), { maxLength: 8 }), (cmds) => {
        let state = run(SELECT_APP, SELECT_NDEF).state;
        for (const c of cmds) {
          const r = processApdu(state, c);
          state = r.state;
          if (r.response) expect(r.response.length).toBeGreaterThanOrEqual(2);
        }
      }),
      { numRuns: 300 },
    );
    expect(() => withMessage(initialType4State(), new Uint8Array(MAX_NDEF_MESSAGE + 1))).toThrow(RangeError);
  });
});

describe('NFC link actor', () => {
  const start = startLink;
  /** The write procedure of the request D10100 (the NDEF file selected). */
  const write = (send: (...c: string[]) => void) => send('00D60000020000', '00D6000203D10100', '00D60000020003');
  const commit = (send: (...c: string[]) => void) => (send(SELECT_APP, SELECT_NDEF), write(send));

  test('a phone establishes the link (Reading card); the commit is answered when the answer is in the file', () => {
    const { actor, log, send } = start();
    expect(actor.getSnapshot().value).toBe('checking');
    actor.send({ type: 'PHONE.ACTIVATED' });
    expect(log).toEqual(['showReading']);
    commit(send);
    expect(actor.getSnapshot().value).toMatchObject({ established: { phone: 'selected', exchange: { pending: 'held' } } });
    expect(log.at(-1)).toBe('submit d10100');
    expect(log.filter((l) => l.startsWith('respond') && l !== 'respond null')).toHaveLength(4); // the commit's is held
    actor.send({ type: 'ANSWER', message: apdu('D10101AA') });
    expect(log.at(-1)).toBe('respond 9000');
    expect(actor.getSnapshot().value).toMatchObject({ established: { exchange: 'answering' } });
    send('00B0000002', '00B0000204');
    expect(log.slice(-2)).toEqual(['respond 00049000', 'respond d10101aa9000']);
    expect(actor.getSnapshot().value).toMatchObject({ established: { exchange: 'idle' } });
  });

  test('an answer slower than the deadline: the commit is acknowledged with an empty file, the answer follows', () => {
    const { actor, clock, log, send } = start();
    actor.send({ type: 'PHONE.ACTIVATED' });
    commit(send);
    clock.increment(ANSWER_DEADLINE_MS - 1);
    expect(log.at(-1)).toBe('submit d10100');
    clock.increment(1);
    expect(log.at(-1)).toBe('respond 9000');
    send('00B0000002');
    expect(log.at(-1)).toBe('respond 00009000'); // not its own request
    actor.send({ type: 'ANSWER', message: apdu('D10101AA') });
    send('00B0000002');
    expect(log.at(-1)).toBe('respond 00049000');
  });

  test('one outstanding: a commit while the answer is unread is refused, and the unread answer stays readable', () => {
    const { actor, log, send } = start();
    actor.send({ type: 'PHONE.ACTIVATED' });
    commit(send);
    actor.send({ type: 'ANSWER', message: apdu('D10101AA') });
    write(send); // the phone lost its read and sends its request again: the write overwrites the answer in the file
    expect(log.at(-1)).toBe('refuse d10100');
    actor.send({ type: 'REFUSED', message: apdu('D10101BB') });
    expect(log.at(-1)).toBe('respond 9000');
    send('00B0000002', '00B0000204');
    expect(log.slice(-2)).toEqual(['respond 00049000', 'respond d10101aa9000']); // the first answer, not the refusal
    expect(actor.getSnapshot().value).toMatchObject({ established: { exchange: 'idle' } });
  });

  test('a commit while the answer is still pending: the refusal is shown until the answer replaces it', () => {
    const { actor, clock, log, send } = start();
    actor.send({ type: 'PHONE.ACTIVATED' });
    commit(send);
    clock.increment(ANSWER_DEADLINE_MS);
    write(send);
    expect(log.at(-1)).toBe('refuse d10100');
    actor.send({ type: 'REFUSED', message: apdu('D10101BB') });
    send('00B0000204');
    expect(log.at(-1)).toBe('respond d10101bb9000');
    actor.send({ type: 'ANSWER', message: apdu('D10101AA') });
    send('00B0000204');
    expect(log.at(-1)).toBe('respond d10101aa9000');
  });

  test('a returning phone finds nothing selected (69 86, 6A 82) and the file as it was', () => {
    const { actor, log, send } = start();
    actor.send({ type: 'PHONE.ACTIVATED' });
    commit(send);
    actor.send({ type: 'ANSWER', message: apdu('D10101AA') });
    actor.send({ type: 'PHONE.RELEASED' });
    actor.send({ type: 'PHONE.ACTIVATED' });
    expect(actor.getSnapshot().context.tag).toMatchObject({ appSelected: false, file: null });
    send('00B0000002');
    expect(log.at(-1)).toBe('respond 6986'); // READ BINARY before any SELECT
    send(SELECT_CC);
    expect(log.at(-1)).toBe('respond 6a82'); // a file before the NDEF application
    send(SELECT_APP, SELECT_NDEF, '00B0000002', '00B0000204');
    expect(log.slice(-2)).toEqual(['respond 00049000', 'respond d10101aa9000']);
  });

  test('a returning phone finds its unread answer even after it began writing over it', () => {
    const { actor, log, send } = start();
    actor.send({ type: 'PHONE.ACTIVATED' });
    commit(send);
    actor.send({ type: 'ANSWER', message: apdu('D10101AA') });
    send('00D60000020000', '00D6000203D10100'); // the phone starts writing, then leaves
    actor.send({ type: 'PHONE.RELEASED' });
    actor.send({ type: 'PHONE.ACTIVATED' });
    send(SELECT_APP, SELECT_NDEF, '00B0000002', '00B0000204');
    expect(log.slice(-2)).toEqual(['respond 00049000', 'respond d10101aa9000']);
  });

  test('phone gone → listening (the file is kept); one minute without activity → checking, HMI back, reader resumes', () => {
    const { actor, clock, log, send } = start();
    actor.send({ type: 'PHONE.ACTIVATED' });
    send(SELECT_APP);
    clock.increment(NFC_IDLE_MS - 1);
    send(SELECT_APP); // activity
    actor.send({ type: 'PHONE.RELEASED' });
    expect(actor.getSnapshot().value).toMatchObject({ established: { phone: 'listening' } });
    clock.increment(NFC_IDLE_MS - 1);
    expect(actor.getSnapshot().value).toMatchObject({ established: {} });
    clock.increment(1);
    expect(actor.getSnapshot().value).toBe('checking');
    expect(log.slice(-2)).toEqual(['hideReading', 'resumeChecking']);
  });

  test('the phone released while a commit is held: no late response, the answer is kept for its return', () => {
    const { actor, log, send } = start();
    actor.send({ type: 'PHONE.ACTIVATED' });
    commit(send);
    actor.send({ type: 'PHONE.RELEASED' });
    const responses = log.length;
    actor.send({ type: 'ANSWER', message: apdu('D10101AA') });
    expect(log.length).toBe(responses);
    actor.send({ type: 'PHONE.ACTIVATED' });
    send(SELECT_APP, SELECT_NDEF, '00B0000002');
    expect(log.at(-1)).toBe('respond 00049000');
  });

  test('the reader leaving target mode (RFID only) ends the link', () => {
    const { actor, log } = start();
    actor.send({ type: 'PHONE.ACTIVATED' });
    actor.send({ type: 'READER.CHECKING' });
    expect(actor.getSnapshot().value).toBe('checking');
    expect(log).toEqual(['showReading', 'hideReading', 'resumeChecking']);
  });
});
