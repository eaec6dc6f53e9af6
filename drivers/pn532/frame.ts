/**
 * PN532 host-link frames (UM0701-02 §6.2; ../shared/reference/pn532-and-type4-tag.md §1): normal and extended
 * information frames, ACK, NACK and the application-level error frame, with both checksums verified, and a
 * streaming decoder that resynchronises after junk, corrupt or truncated frames.
 */

/** Frame identifier: host to chip. */
export const TFI_HOST = 0xd4;
/** Frame identifier: chip to host. */
export const TFI_CHIP = 0xd5;
/** The TFI of the application-level error frame. */
export const TFI_ERROR = 0x7f;

export const ACK_FRAME = Uint8Array.of(0x00, 0x00, 0xff, 0x00, 0xff, 0x00);
export const NACK_FRAME = Uint8Array.of(0x00, 0x00, 0xff, 0xff, 0x00, 0x00);
export const ERROR_FRAME = Uint8Array.of(0x00, 0x00, 0xff, 0x01, 0xff, 0x7f, 0x81, 0x00);
/** Wake-up from low-VBat / power-down: 0x55 0x55 then zeros for the chip's oscillator to start (HSU). */
export const WAKE_UP = Uint8Array.of(0x55, 0x55, ...new Array<number>(14).fill(0));

/** TFI + data up to this length travel in a normal frame; longer ones in an extended frame. */
export const MAX_NORMAL_LEN = 0xff;
/** An extended frame's LEN is 16 bits; the chip's own buffer is far smaller (265 bytes). */
export const MAX_EXTENDED_LEN = 0xffff;

export type Frame =
  | { type: 'ack' }
  | { type: 'nack' }
  /** The chip's application-level error frame (syntax error in the host's frame). */
  | { type: 'error' }
  | { type: 'info'; tfi: number; data: Uint8Array }
  /** A frame whose length or data checksum is wrong: the receiver asks again with a NACK. */
  | { type: 'corrupt' };

/** The byte that makes `sum + checksum ≡ 0 (mod 256)`. */
export function checksum(bytes: ArrayLike<number>, from = 0, to = bytes.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += bytes[i]!;
  return (0x100 - (sum & 0xff)) & 0xff;
}

/** An information frame with `tfi` and `data` (normal when TFI + data fit in 255 bytes, else extended). */
export function encodeFrame(tfi: number, data: Uint8Array): Uint8Array {
  const len = data.length + 1;
  if (len > MAX_EXTENDED_LEN) throw new RangeError(`PN532 frame data too long (${data.length} bytes)`);
  const extended = len > MAX_NORMAL_LEN;
  const head = extended ? 8 : 5;
  const out = new Uint8Array(head + len + 2);
  out.set([0x00, 0x00, 0xff]);
  if (extended) {
    out.set([0xff, 0xff, len >> 8, len & 0xff, checksum([len >> 8, len & 0xff])], 3);
  } else {
    out[3] = len;
    out[4] = checksum([len]);
  }
  out[head] = tfi;
  out.set(data, head + 1);
  out[head + len] = checksum(out, head, head + len);
  out[head + len + 1] = 0x00;
  return out;
}

/** Bytes kept while waiting for the rest of a frame; beyond this the oldest are dropped (junk cannot grow memory). */
const MAX_BUFFER = MAX_EXTENDED_LEN + 16;

/**
 * A streaming decoder: `push` bytes as they arrive, get the complete frames found so far. Anything before a start
 * code (00 FF) is skipped; a frame with a bad length checksum is not a frame (the search resumes after its start
 * code); a frame with a bad data checksum is reported `corrupt` once its length has arrived.
 */
export class FrameDecoder {
  private buffer = new Uint8Array(0);
  /** The last frame ended with the last byte that had arrived: a 00 arriving next is its postamble. */
  private postambleDue = false;
  /** Bytes skipped as junk so far (diagnostics and tests). */
  skipped = 0;

  push(chunk: Uint8Array): Frame[] {
    const joined = new Uint8Array(this.buffer.length + chunk.length);
    joined.set(this.buffer);
    joined.set(chunk, this.buffer.length);
    const frames: Frame[] = [];
    // A postamble is read whether it arrives with its frame or after it, so it never joins later bytes as a start code.
    let pos = this.postambleDue && joined[0] === 0x00 ? 1 : 0;
    if (joined.length > 0) this.postambleDue = false;
    for (;;) {
      const start = this.findStart(joined, pos);
      if (start < 0) {
        // Keep a trailing 00 not read yet (it may be the first byte of a start code); a frame's postamble is read.
        const keep = pos < joined.length && joined[joined.length - 1] === 0x00 ? 1 : 0;
        this.skipped += joined.length - keep - pos;
        pos = joined.length - keep;
        break;
      }
      this.skipped += start - pos;
      const parsed = this.parseAt(joined, start);
      if (parsed === 'incomplete') {
        pos = start;
        break;
      }
      if (parsed === 'invalid') {
        this.skipped += 1;
        pos = start + 1;
        continue;
      }
      frames.push(parsed.frame);
      pos = parsed.end;
      if (parsed.frame.type === 'corrupt') {
        // The bytes after the start code may belong to a frame that cut this one short: search again inside it.
        pos = start + 2;
      } else this.postambleDue = parsed.postambleDue;
    }
    this.buffer = joined.slice(Math.max(pos, joined.length - MAX_BUFFER));
    return frames;
  }

  private findStart(b: Uint8Array, from: number): number {
    // Stryker disable next-line EqualityOperator,ArithmeticOperator: a bound one further reads b[b.length], undefined, which is no start code: the same result.
    for (let i = from; i + 1 < b.length; i++) if (b[i] === 0x00 && b[i + 1] === 0xff) return i;
    return -1;
  }

  /** The frame whose start code (00 FF) is at `s`. */
  private parseAt(b: Uint8Array, s: number): { frame: Frame; end: number; postambleDue: boolean } | 'incomplete' | 'invalid' {
    const i = s + 2;
    if (b.length < i + 2) return 'incomplete';
    const a = b[i]!;
    const c = b[i + 1]!;
    // The frame ends at `end`, before its postamble (00), read when there; due when no byte has arrived after it yet.
    const done = (frame: Frame, end: number) => ({ frame, end: b[end] === 0x00 ? end + 1 : end, postambleDue: end === b.length });
    if (a === 0x00 && c === 0xff) {
      if (b.length < i + 3) return 'incomplete';
      return done({ type: 'ack' }, i + 2);
    }
    if (a === 0xff && c === 0x00) {
      if (b.length < i + 3) return 'incomplete';
      return done({ type: 'nack' }, i + 2);
    }
    let len: number;
    let head: number;
    if (a === 0xff && c === 0xff) {
      if (b.length < i + 5) return 'incomplete';
      len = (b[i + 2]! << 8) | b[i + 3]!;
      if (((b[i + 2]! + b[i + 3]! + b[i + 4]!) & 0xff) !== 0) return 'invalid';
      head = i + 5;
    } else {
      len = a;
      if (((a + c) & 0xff) !== 0) return 'invalid';
      head = i + 2;
    }
    if (len === 0) return 'invalid';
    if (b.length < head + len + 1) return 'incomplete';
    let sum = 0;
    // Stryker disable next-line AssignmentOperator: the negated sum is 0 mod 256 exactly when the sum is.
    for (let k = head; k <= head + len; k++) sum += b[k]!;
    const end = head + len + 1;
    if ((sum & 0xff) !== 0) return done({ type: 'corrupt' }, end);
    const tfi = b[head]!;
    if (tfi === TFI_ERROR && len === 1) return done({ type: 'error' }, end);
    return done({ type: 'info', tfi, data: b.slice(head + 1, head + len) }, end);
  }
}
