import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { initialType4State, processApdu, statusWord, SW, type Type4State } from '../../machines/type4-tag.js';
import { capabilityContainer, Type4TagSpec } from '../model/invariants/type4-tag.js';

/**
 * The Type 4 Tag logic against the independent oracle (test/model/invariants/type4-tag.ts): sequences of command APDUs, well
 * formed and not, each answer checked as ISO 7816-4 and the T4T mapping ask (status words, no data with an error,
 * READ BINARY lengths, the capability container, the file reading back what the phone wrote).
 */

const bytes = (h: string) => Array.from(Buffer.from(h.replace(/\s/g, ''), 'hex'));
const AID = bytes('D2760000850101');
const hex = (b: Uint8Array | null) => (b ? Buffer.from(b).toString('hex') : null);

/** Runs commands through processApdu and the oracle; a commit's held answer is the link's `90 00` (nfc-link.ts). */
function run(commands: number[][], start: Type4State = initialType4State()) {
  const spec = new Type4TagSpec();
  let state = start;
  const broken: string[] = [];
  const answers: (string | null)[] = [];
  for (const command of commands) {
    const result = processApdu(state, Uint8Array.from(command));
    state = result.state;
    const response = result.response ?? (result.outcome?.type === 'commit' ? statusWord(SW.ok) : null);
    answers.push(hex(result.response));
    broken.push(...spec.answer(command, response));
  }
  return { broken, answers, state };
}

const byte = fc.integer({ min: 0, max: 255 });
/** A command APDU: the T4T commands with varied parameters and lengths, other classes and instructions, junk. */
const command: fc.Arbitrary<number[]> = fc.oneof(
  // SELECT by name: the NDEF application or another, P2 00/0C or other, with or without Le, Lc right or wrong.
  fc.tuple(fc.constantFrom(0x00, 0x0c, 0x02), fc.boolean(), fc.boolean(), fc.integer({ min: -1, max: 1 })).map(([p2, other, le, lcOff]) => {
    const name = other ? [...AID.slice(0, 6), 0x02] : AID;
    return [0x00, 0xa4, 0x04, p2, name.length + lcOff, ...name, ...(le ? [0x00] : [])];
  }),
  // SELECT by file id: E103, E104, another; P1/P2 right or wrong; Lc 2 or another.
  fc
    .tuple(fc.constantFrom(0x00, 0x02), fc.constantFrom(0x0c, 0x00, 0x04), fc.constantFrom([0xe1, 0x03], [0xe1, 0x04], [0xe1, 0x05], [0xe1]), fc.boolean())
    .map(([p1, p2, id, le]) => [0x00, 0xa4, p1, p2, id.length, ...id, ...(le ? [0x00] : [])]),
  // READ BINARY: offsets in and out of the files, Le 00 (256), small, MLe, over MLe; sometimes a wrong length.
  fc
    .tuple(fc.constantFrom(0x00, 0x7f, 0x80), byte, fc.constantFrom(0x00, 0x01, 0x02, 0x0f, 0x10, 0xf6, 0xf7, 0xff), fc.constantFrom(0, 0, 0, 1, -1))
    .map(([p1, p2, le, extra]) => (extra < 0 ? [0x00, 0xb0, p1, p2] : [0x00, 0xb0, p1, p2, le, ...(extra ? [0x00] : [])])),
  // UPDATE BINARY: NLEN 0, a message, NLEN of it, offsets near the end; Lc right, wrong or 0; sometimes over MLc.
  fc
    .tuple(
      fc.constantFrom(0x00, 0x7f, 0x80),
      fc.constantFrom(0x00, 0x01, 0x02, 0xfe, 0xff),
      fc.uint8Array({ minLength: 0, maxLength: 8 }),
      fc.integer({ min: -1, max: 1 }),
      fc.boolean(),
    )
    .map(([p1, p2, data, lcOff, long]) => {
      const body = long ? new Array<number>(0xf7).fill(0x41) : Array.from(data);
      return [0x00, 0xd6, p1, p2, Math.max(0, body.length + lcOff) & 0xff, ...body];
    }),
  // NLEN writes: 0, a small length (the commit), one over the file's capacity.
  fc.constantFrom([0x00, 0x00], [0x00, 0x03], [0x7f, 0xfe], [0xff, 0xff]).map((nlen) => [0x00, 0xd6, 0x00, 0x00, 0x02, ...nlen]),
  // Another class, another instruction, too short, junk.
  fc.tuple(fc.integer({ min: 1, max: 255 }), byte).map(([cla, ins]) => [cla, ins, 0x00, 0x00]),
  fc.constantFrom(0xca, 0xb1, 0xd7, 0x20).map((ins) => [0x00, ins, 0x00, 0x00, 0x00]),
  fc.array(byte, { maxLength: 3 }),
  fc.array(byte, { minLength: 4, maxLength: 12 }),
);

const READ_PROCEDURE = ['00A4040007D2760000850101 00', '00A4000C02E103', '00B000000F', '00A4000C02E104', '00B0000002'].map(bytes);

describe('Type 4 Tag logic against the ISO 7816-4 / T4T oracle', () => {
  test('the read procedure and the capability container', () => {
    const { broken, answers } = run(READ_PROCEDURE);
    expect(broken).toEqual([]);
    expect(capabilityContainer(bytes(answers[2]!.slice(0, -4)))).toEqual({ mle: 0xf6, mlc: 0xf6, fileId: 0xe104, fileSize: 0x7fff, writable: true });
  });

  test('any sequence of commands, from a fresh tag and after the read procedure', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(command, { maxLength: 12 }), (read, commands) => {
        const { broken } = run([...(read ? READ_PROCEDURE : []), ...commands]);
        expect(broken).toEqual([]);
      }),
      { numRuns: 3000 },
    );
  });

  test('malformed READ BINARY: Le = 00 asks 256 bytes, more than MLe (67 00); no Le; an extra byte; P1 with bit 8', () => {
    const { broken, answers } = run([...READ_PROCEDURE, bytes('00B0000000'), bytes('00B00000'), bytes('00B000000200'), bytes('00B0800002')]);
    expect(broken).toEqual([]);
    expect(answers.slice(-4)).toEqual(['6700', '6700', '6700', '6a86']);
  });

  test('malformed SELECT and UPDATE BINARY: Lc longer or shorter than the data, no Lc, no data, over MLc', () => {
    const { broken, answers } = run([
      ...READ_PROCEDURE,
      bytes('00A4040008D2760000850101'),
      bytes('00A4040006D276000085010100'),
      bytes('00A40400'),
      bytes('00A4040007D2760000850101'),
      bytes('00A4000C01E1'),
      bytes('00A4000C02E104'),
      bytes('00D6000000'),
      bytes('00D60002'),
      [0x00, 0xd6, 0x00, 0x02, 0xf7, ...new Array<number>(0xf7).fill(0x41)],
      bytes('00D67FFF020000'),
      bytes('00D6800002FFFF'),
    ]);
    expect(broken).toEqual([]);
    expect(answers.slice(READ_PROCEDURE.length)).toEqual(['6700', '6700', '6700', '9000', '6700', '9000', '6700', '6700', '6700', '6b00', '6a86']);
  });

  test('the file reads back what the phone wrote, to its end (62 82 at the end of the file)', () => {
    const { broken, answers } = run([
      ...READ_PROCEDURE,
      bytes('00D6000203D10100'),
      bytes('00D60000020003'),
      bytes('00B0000005'),
      bytes('00D67FFD02ABCD'),
      bytes('00B07FFD04'),
      bytes('00B07FFF01'),
    ]);
    expect(broken).toEqual([]);
    expect(answers.slice(-6)).toEqual(['9000', null, '0003d101009000', '9000', 'abcd6282', '6b00']);
  });
});
