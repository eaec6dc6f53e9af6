import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { decodeTextRecord, encodeTextRecord, NdefError } from '../../drivers/nfc/ndef.js';

/** The npm `ndef` package (no types, CommonJS): an independent encoder/decoder to cross-check ours. */
const ndef = createRequire(import.meta.url)('ndef') as {
  textRecord(text: string): unknown;
  encodeMessage(records: unknown[]): number[];
  decodeMessage(bytes: number[]): Array<{ tnf: number; type: number[] | string; payload: number[] }>;
  text: { decodePayload(payload: number[]): string };
};

const hex = (bytes: ArrayLike<number>) => Buffer.from(Array.from(bytes)).toString('hex').toUpperCase();

describe('NDEF Text record', () => {
  test('the reference bytes: "hi" in English', () => {
    expect(hex(encodeTextRecord('hi'))).toBe('D101055402656E6869');
    expect(decodeTextRecord(Buffer.from('D101055402656E6869', 'hex'))).toBe('hi');
  });

  test('a payload over 255 bytes is a long record with a 4-byte length', () => {
    const text = 'x'.repeat(300);
    const bytes = encodeTextRecord(text);
    expect(hex(bytes.subarray(0, 7))).toBe('C1010000012F54');
    expect(bytes.length).toBe(7 + 303);
    expect(decodeTextRecord(bytes)).toBe(text);
  });

  test('the boundary: 255 payload bytes short, 256 long', () => {
    expect(encodeTextRecord('a'.repeat(252))[0]).toBe(0xd1);
    expect(encodeTextRecord('a'.repeat(253))[0]).toBe(0xc1);
  });

  test('round trip of any text, and the ndef package reads what we write and writes what we read', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), (text) => {
        const ours = encodeTextRecord(text);
        expect(decodeTextRecord(ours)).toBe(text);
        const records = ndef.decodeMessage(Array.from(ours));
        expect(records).toHaveLength(1);
        expect(records[0]!.tnf).toBe(1);
        expect(ndef.text.decodePayload(records[0]!.payload)).toBe(text);
        // Same bytes both ways (the package writes language "en" and UTF-8 too).
        expect(hex(ndef.encodeMessage([ndef.textRecord(text)]))).toBe(hex(ours));
      }),
      { numRuns: 200 },
    );
  });

  // The reason is the cause of the 400 answer the phone gets (services/nfc/mapping.ts), so each says what is wrong.
  test.each([
    ['empty', '', /shorter than a record header/],
    ['chunked record (CF)', 'B101055402656E6869', /Chunked NDEF records are not supported/],
    ['two records (ME missing on the first)', '9101055402656E6869', /must hold exactly one record$/],
    ['not the first record (MB missing)', '5101055402656E6869', /must hold exactly one record$/],
    ['a URI record', 'D101035500616263', /well-known Text record/],
    ['a type two bytes long', 'D102035454026869', /well-known Text record/],
    ['media type (TNF 2)', 'D2010354026869', /well-known Text record/],
    ['TNF 0 (empty)', 'D0010354026869', /well-known Text record/],
    ['UTF-16 text', 'D101075482656EFFFE6800', /UTF-16 Text records are not supported/],
    ['payload longer than the bytes', 'D101095402656E6869', /shorter than its payload length says/],
    ['bytes after the record', 'D101055402656E686900', /bytes follow the record/],
    ['language longer than the payload', 'D101035409656E', /language code is longer than its payload/],
    ['no status byte', 'D1010054', /has no status byte/],
    ['invalid UTF-8', 'D101055402656EC328', /not valid UTF-8/],
    ['truncated long header', 'C10100', /header is truncated/],
    ['long header without its last length byte', 'C1010000', /header is truncated/],
    ['ID length missing', 'D90105', /header is truncated/],
    ['type and ID past the end', 'D901050254', /header is truncated/],
  ])('refused with a reason: %s', (_name, bytes, reason) => {
    expect(() => decodeTextRecord(Buffer.from(bytes, 'hex'))).toThrow(NdefError);
    expect(() => decodeTextRecord(Buffer.from(bytes, 'hex'))).toThrow(reason);
  });

  test('a long record: its 4-byte length read big-endian, from a message inside a larger buffer', () => {
    const inner = encodeTextRecord('y'.repeat(300));
    const buffer = new Uint8Array(inner.length + 16);
    buffer.set(inner, 8);
    expect(decodeTextRecord(buffer.subarray(8, 8 + inner.length))).toBe('y'.repeat(300));
  });

  test('the language code: encoded as given (up to 63 bytes), skipped when decoding', () => {
    const de = encodeTextRecord('hallo', 'de-CH');
    expect(hex(de)).toBe(`D1010B5405${hex(Buffer.from('de-CHhallo'))}`);
    expect(decodeTextRecord(de)).toBe('hallo');
    expect(decodeTextRecord(encodeTextRecord('x', 'l'.repeat(63)))).toBe('x');
    expect(() => encodeTextRecord('x', 'l'.repeat(64))).toThrow(new RangeError('language code longer than 63 bytes'));
    expect(decodeTextRecord(encodeTextRecord('', ''))).toBe('');
  });

  test('a byte-order mark at the start of the text is kept (it is text, not an encoding marker)', () => {
    expect(decodeTextRecord(encodeTextRecord('\uFEFFhi'))).toBe('\uFEFFhi');
  });

  test('an ID field is skipped', () => {
    // MB ME SR IL TNF1, type length 1, payload 5, id length 2, "T", id "ab", payload.
    expect(decodeTextRecord(Buffer.from('D9010502546162' + '02656E6869', 'hex'))).toBe('hi');
  });

  test('never throws anything but NdefError on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          decodeTextRecord(bytes);
        } catch (err) {
          expect(err).toBeInstanceOf(NdefError);
        }
      }),
      { numRuns: 500 },
    );
  });
});
