import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ACK_FRAME, checksum, encodeFrame, ERROR_FRAME, FrameDecoder, NACK_FRAME, TFI_CHIP, TFI_HOST, WAKE_UP } from '../../drivers/pn532/frame.js';

const hex = (bytes: ArrayLike<number>) => Buffer.from(Array.from(bytes)).toString('hex').toUpperCase();
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/\s/g, ''), 'hex'));

describe('PN532 frames', () => {
  test('the reference bytes: GetFirmwareVersion, its response, ACK, NACK, error frame', () => {
    expect(hex(encodeFrame(TFI_HOST, Uint8Array.of(0x02)))).toBe('0000FF02FED4022A00');
    expect(hex(encodeFrame(TFI_CHIP, bytes('0332010607')))).toBe('0000FF06FAD50332010607E800');
    expect(new FrameDecoder().push(bytes('0000FF06FAD50332010607E800'))).toEqual([{ type: 'info', tfi: 0xd5, data: bytes('0332010607') }]);
    expect(new FrameDecoder().push(ACK_FRAME)).toEqual([{ type: 'ack' }]);
    expect(new FrameDecoder().push(NACK_FRAME)).toEqual([{ type: 'nack' }]);
    expect(new FrameDecoder().push(ERROR_FRAME)).toEqual([{ type: 'error' }]);
  });

  test('both checksums are right for every data length of a normal frame and beyond, any content', () => {
    // Every length 0…600 (normal up to 254 data bytes, extended above), random data; plus data summing to 0 mod 256,
    // the case the npm pn532 package gets wrong.
    for (let n = 0; n <= 600; n++) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff);
      for (const payload of [data, zeroSum(data)]) {
        const frame = encodeFrame(TFI_HOST, payload);
        const extended = n + 1 > 255;
        expect(frame.length).toBe((extended ? 8 : 5) + n + 3);
        if (extended) expect((frame[5]! + frame[6]! + frame[7]!) & 0xff).toBe(0);
        else expect((frame[3]! + frame[4]!) & 0xff).toBe(0);
        const head = extended ? 8 : 5;
        let sum = 0;
        for (let i = head; i <= head + n + 1; i++) sum += frame[i]!;
        expect(sum & 0xff).toBe(0);
        expect(new FrameDecoder().push(frame)).toEqual([{ type: 'info', tfi: TFI_HOST, data: payload }]);
      }
    }
  });

  test('property: checksum makes any byte sequence sum to 0 mod 256', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (data) => {
        expect((data.reduce((a, b) => a + b, 0) + checksum(data)) & 0xff).toBe(0);
      }),
    );
  });

  test('property: frames split anywhere and surrounded by junk decode to the same frames', () => {
    const frameArb = fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map((d) => ({ bytes: encodeFrame(TFI_CHIP, d), frame: { type: 'info', tfi: TFI_CHIP, data: d } as const })),
      fc.constant({ bytes: ACK_FRAME, frame: { type: 'ack' } as const }),
      fc.constant({ bytes: NACK_FRAME, frame: { type: 'nack' } as const }),
      fc.constant({ bytes: ERROR_FRAME, frame: { type: 'error' } as const }),
    );
    // Junk that cannot start a frame (no 0x00), as line noise or the wake-up's 0x55 bytes.
    const junk = fc.uint8Array({ maxLength: 8 }).map((j) => j.map((b) => b | 0x01));
    fc.assert(
      fc.property(fc.array(fc.tuple(junk, frameArb), { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 6 }), (items, cuts) => {
        const stream = Buffer.concat(items.flatMap(([j, f]) => [Buffer.from(j), Buffer.from(f.bytes)]));
        const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
        const decoder = new FrameDecoder();
        const got = [];
        let last = 0;
        for (const p of [...points, stream.length]) {
          got.push(...decoder.push(stream.subarray(last, p)));
          last = p;
        }
        expect(got).toEqual(items.map(([, f]) => f.frame));
      }),
      { numRuns: 300 },
    );
  });

  test('property: how a stream is split changes no frame found, junk with 00 and FF and corrupt frames included', () => {
    const good = fc.uint8Array({ maxLength: 300 }).map((d) => Array.from(encodeFrame(TFI_CHIP, d)));
    const corrupt = fc
      .tuple(good, fc.nat(), fc.integer({ min: 1, max: 255 }))
      .map(([f, at, x]) => f.map((b, i) => (i === 3 + (at % (f.length - 3)) ? b ^ x : b)));
    const piece = fc.oneof(
      good,
      corrupt,
      fc.constantFrom(Array.from(ACK_FRAME), Array.from(NACK_FRAME), Array.from(ERROR_FRAME)),
      fc.array(fc.constantFrom(0x00, 0xff, 0x01, 0x55), { maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 8 }), (pieces, cuts) => {
        const stream = Uint8Array.from(pieces.flat());
        const whole = new FrameDecoder();
        const expected = whole.push(stream);
        const split = new FrameDecoder();
        const got = [];
        let last = 0;
        for (const p of [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b).concat(stream.length)) {
          got.push(...split.push(stream.subarray(last, p)));
          last = p;
        }
        expect(got).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  test('a bad start at the end of what arrived is judged at once: normal length, extended length', () => {
    const d = new FrameDecoder();
    expect(d.push(bytes('00FF0505'))).toEqual([]);
    expect(d.skipped).toBe(4);
    const e = new FrameDecoder();
    expect(e.push(bytes('00FFFFFF000100'))).toEqual([]);
    expect(e.skipped).toBe(6); // all but the trailing 00, which may begin a start code
  });

  test('junk between frames in one chunk is counted', () => {
    const a = encodeFrame(TFI_CHIP, bytes('4B00'));
    const d = new FrameDecoder();
    expect(d.push(Uint8Array.from([...a, 0x55, 0x55, 0x55, ...a]))).toHaveLength(2);
    expect(d.skipped).toBe(5); // two preambles and three junk bytes
  });

  test('the longest extended frame decodes, also in pieces (the buffer holds a whole one)', () => {
    const data = Uint8Array.from({ length: 0xfffe }, (_, i) => i & 0xff);
    const frame = encodeFrame(TFI_CHIP, data);
    const d = new FrameDecoder();
    const got = [];
    for (let i = 0; i < frame.length; i += 4096) got.push(...d.push(frame.subarray(i, i + 4096)));
    expect(got).toEqual([{ type: 'info', tfi: TFI_CHIP, data }]);
  });

  test('the wake-up bytes before a frame are skipped', () => {
    const d = new FrameDecoder();
    expect(d.push(Uint8Array.from([...WAKE_UP, ...ACK_FRAME]))).toEqual([{ type: 'ack' }]);
  });

  test('a corrupt data checksum is reported, and the next frame still decodes', () => {
    const good = encodeFrame(TFI_CHIP, bytes('4B00'));
    const bad = good.slice();
    bad[7] = bad[7]! ^ 0x01;
    expect(new FrameDecoder().push(Uint8Array.from([...bad, ...good]))).toEqual([{ type: 'corrupt' }, { type: 'info', tfi: TFI_CHIP, data: bytes('4B00') }]);
  });

  test('a bad length checksum is junk: the search resumes after its start code', () => {
    const good = encodeFrame(TFI_CHIP, bytes('4B00'));
    const d = new FrameDecoder();
    expect(d.push(Uint8Array.from([0x00, 0x00, 0xff, 0x05, 0x05, ...good]))).toEqual([{ type: 'info', tfi: TFI_CHIP, data: bytes('4B00') }]);
    expect(d.skipped).toBe(6); // 00, the bad start code's 00 FF 05 05, the good frame's preamble
  });

  test('a bad extended-frame length checksum is junk too: no frame of that length is waited for', () => {
    const good = encodeFrame(TFI_CHIP, bytes('4B00'));
    const long = encodeFrame(TFI_CHIP, new Uint8Array(300).fill(0x11));
    const bad = long.slice();
    bad[7] = bad[7]! ^ 0x01; // LCS of LENM LENL
    const d = new FrameDecoder();
    expect(d.push(Uint8Array.from([...bad.subarray(0, 20), ...good]))).toEqual([{ type: 'info', tfi: TFI_CHIP, data: bytes('4B00') }]);
    expect(new FrameDecoder().push(long)).toEqual([{ type: 'info', tfi: TFI_CHIP, data: new Uint8Array(300).fill(0x11) }]);
  });

  test('a length of zero (normal or extended, with a right length checksum) is no frame', () => {
    const good = encodeFrame(TFI_CHIP, bytes('4B00'));
    for (const zero of [bytes('0000FF0000'), bytes('0000FFFFFF000000')]) {
      const d = new FrameDecoder();
      expect(d.push(Uint8Array.from([...zero, ...good]))).toEqual([{ type: 'info', tfi: TFI_CHIP, data: bytes('4B00') }]);
    }
  });

  test('frames arriving byte by byte: an information frame is complete with its DCS, an ACK or NACK with its postamble', () => {
    for (const frame of [ERROR_FRAME, encodeFrame(TFI_CHIP, bytes('4B00')), encodeFrame(TFI_CHIP, new Uint8Array(256).fill(7))]) {
      const d = new FrameDecoder();
      const got = [];
      for (let i = 0; i < frame.length - 1; i++) got.push(...d.push(frame.subarray(i, i + 1)));
      expect(got.length).toBe(1);
      expect(d.push(frame.subarray(-1))).toEqual([]); // the postamble, later
      expect(d.push(ACK_FRAME)).toEqual([{ type: 'ack' }]);
      expect(d.skipped).toBe(2); // the two preambles (00) before the start codes; the late postamble is read as one
    }
    for (const frame of [ACK_FRAME, NACK_FRAME]) {
      const d = new FrameDecoder();
      for (let i = 0; i < frame.length - 1; i++) expect(d.push(frame.subarray(i, i + 1))).toEqual([]);
      expect(d.push(frame.subarray(-1))).toHaveLength(1);
      expect(d.skipped).toBe(1);
    }
  });

  test("a frame's postamble is read: junk after it cannot form a start code with it (no phantom ACK)", () => {
    const d = new FrameDecoder();
    expect(d.push(ACK_FRAME)).toEqual([{ type: 'ack' }]);
    expect(d.push(bytes('FF00FF00'))).toEqual([]);
    expect(d.skipped).toBe(2); // the ACK's preamble and the FF
    const e = new FrameDecoder();
    expect(e.push(Uint8Array.from([...encodeFrame(TFI_CHIP, bytes('4B00'))]))).toHaveLength(1);
    expect(e.push(bytes('FF00FF00'))).toEqual([]);
    // The postamble arriving after its frame, in the next chunk, is read as one too (no phantom NACK from 00 FF FF 00).
    const f = new FrameDecoder();
    const frame = encodeFrame(TFI_CHIP, bytes('4B00'));
    expect(f.push(frame.subarray(0, -1))).toHaveLength(1);
    expect(f.push(bytes('00FFFF0000'))).toEqual([]);
    expect(f.push(new Uint8Array(0))).toEqual([]);
    expect(f.skipped).toBe(4); // the preamble, FF FF 00; the last 00 may begin a start code
  });

  test('a frame without its postamble, directly followed by another', () => {
    const a = encodeFrame(TFI_CHIP, bytes('4B00'));
    const b = encodeFrame(TFI_CHIP, bytes('4B01'));
    expect(new FrameDecoder().push(Uint8Array.from([...a.subarray(0, -1), ...b]))).toEqual([
      { type: 'info', tfi: TFI_CHIP, data: bytes('4B00') },
      { type: 'info', tfi: TFI_CHIP, data: bytes('4B01') },
    ]);
    expect(new FrameDecoder().push(Uint8Array.from([...ACK_FRAME.subarray(0, -1), ...NACK_FRAME.subarray(0, -1), ...ERROR_FRAME]))).toEqual([
      { type: 'ack' },
      { type: 'nack' },
      { type: 'error' },
    ]);
  });

  test('the error frame is TFI 7F with no data; 7F with data is an ordinary frame', () => {
    expect(new FrameDecoder().push(encodeFrame(0x7f, Uint8Array.of(0x01)))).toEqual([{ type: 'info', tfi: 0x7f, data: Uint8Array.of(0x01) }]);
  });

  test('junk is counted: bytes before a start code, a lone 00, a trailing 00 kept for the next chunk', () => {
    const d = new FrameDecoder();
    expect(d.push(bytes('5555'))).toEqual([]);
    expect(d.skipped).toBe(2);
    expect(d.push(bytes('55 00'))).toEqual([]);
    expect(d.skipped).toBe(3); // the 00 may begin a start code
    expect(d.push(bytes('FF00FF00'))).toEqual([{ type: 'ack' }]);
    expect(d.skipped).toBe(3);
    expect(d.push(bytes('00 00'))).toEqual([]);
    expect(d.skipped).toBe(4);
  });

  test('data too long for an extended frame is refused', () => {
    expect(() => encodeFrame(TFI_HOST, new Uint8Array(0xffff))).toThrow(new RangeError('PN532 frame data too long (65535 bytes)'));
    expect(encodeFrame(TFI_HOST, new Uint8Array(0xfffe)).length).toBe(8 + 0xffff + 2);
    expect(hex(encodeFrame(TFI_HOST, new Uint8Array(254)).subarray(0, 5))).toBe('0000FFFF01');
    expect(hex(encodeFrame(TFI_HOST, new Uint8Array(255)).subarray(0, 8))).toBe('0000FFFFFF010000'.slice(0, 14) + 'FF');
  });

  test('a truncated frame followed by a whole one: the whole one is found', () => {
    const good = encodeFrame(TFI_CHIP, bytes('4B0101000408040A0B0C0D'));
    const truncated = good.subarray(0, 9);
    const frames = new FrameDecoder().push(Uint8Array.from([...truncated, ...good]));
    expect(frames.at(-1)).toEqual({ type: 'info', tfi: TFI_CHIP, data: bytes('4B0101000408040A0B0C0D') });
  });

  test('junk alone never grows the buffer without bound', () => {
    const d = new FrameDecoder();
    for (let i = 0; i < 100; i++) d.push(new Uint8Array(10_000).fill(0x55));
    expect(d.skipped).toBe(1_000_000);
  });
});

/** `data` with its last byte changed so TFI (D4) + data sums to 0 mod 256 (DCS = 0x00). */
function zeroSum(data: Uint8Array): Uint8Array {
  if (data.length === 0) return data;
  const out = data.slice();
  const sum = out.subarray(0, -1).reduce((a, b) => a + b, TFI_HOST);
  out[out.length - 1] = (0x100 - (sum & 0xff)) & 0xff;
  return out;
}
