import { describe, expect, test } from 'vitest';
import { encodeFrame, FrameDecoder, MAX_EXTENDED_LEN, TFI_CHIP } from '../../drivers/pn532/frame.js';

/**
 * The PN532 frame decoder at its edges (found by mutation testing, docs/mutation-testing.md): the longest extended
 * frame arriving in chunks, a frame whose preamble was lost, an empty chunk before a late postamble.
 */

const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/\s/g, ''), 'hex'));

describe('PN532 frame decoder edges', () => {
  test('the longest extended frame, in 4 KB chunks, is buffered whole and decoded', () => {
    const data = Uint8Array.from({ length: MAX_EXTENDED_LEN - 1 }, (_, i) => i & 0xff);
    const frame = encodeFrame(TFI_CHIP, data);
    const d = new FrameDecoder();
    const found = [];
    for (let i = 0; i < frame.length; i += 4096) found.push(...d.push(frame.subarray(i, i + 4096)));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ type: 'info', tfi: TFI_CHIP });
    expect(found[0]?.type === 'info' && Buffer.from(found[0].data).equals(Buffer.from(data))).toBe(true);
  });

  test('a frame whose preamble was lost (starting at its start code) is found', () => {
    expect(new FrameDecoder().push(bytes('00FF00FF00'))).toEqual([{ type: 'ack' }]);
    const d = new FrameDecoder();
    expect(d.push(bytes('00FF00FF00'))).toHaveLength(1);
    expect(d.push(bytes('00FF00FF00'))).toEqual([{ type: 'ack' }]); // its first 00 is the start code, not a postamble
  });

  test('an empty chunk between a frame and its late postamble changes nothing (no phantom NACK)', () => {
    const d = new FrameDecoder();
    const frame = encodeFrame(TFI_CHIP, bytes('4B00'));
    expect(d.push(frame.subarray(0, -1))).toHaveLength(1);
    expect(d.push(new Uint8Array(0))).toEqual([]);
    expect(d.push(bytes('00FFFF0000'))).toEqual([]);
  });

  test('after a frame without its postamble, only a 00 is taken as the postamble: other bytes are counted as junk', () => {
    const d = new FrameDecoder();
    expect(d.push(encodeFrame(TFI_CHIP, bytes('4B00')).subarray(0, -1))).toHaveLength(1);
    expect(d.skipped).toBe(1); // the preamble
    expect(d.push(bytes('55 0000FF00FF00'))).toEqual([{ type: 'ack' }]);
    expect(d.skipped).toBe(3); // 55 and the ACK's preamble
  });
});
