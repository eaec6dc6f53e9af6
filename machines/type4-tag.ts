/**
 * NFC Forum Type 4 Tag (mapping version 2.0) as the controller emulates it: the NDEF application, its capability
 * container (file E103) and its NDEF file (E104), answering SELECT, READ BINARY and UPDATE BINARY. Pure functions
 * over an immutable state; the NFC link actor (nfc-link.ts) owns the state and acts on the outcomes.
 */

export const NDEF_AID = Uint8Array.of(0xd2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01);
export const CC_FILE_ID = 0xe103;
export const NDEF_FILE_ID = 0xe104;
/** Largest READ BINARY answer and UPDATE BINARY data: every PN532 frame of the exchange stays a normal frame. */
export const MLE = 0xf6;
export const MLC = 0xf6;
/** Size of the NDEF file (NLEN + message): at most 0x7FFF so phones never need the v3.0 extended commands. */
export const NDEF_FILE_SIZE = 0x7fff;
/** The longest NDEF message the file holds (request or answer). */
export const MAX_NDEF_MESSAGE = NDEF_FILE_SIZE - 2;

/** Status words (ISO 7816-4). */
export const SW = {
  ok: 0x9000,
  endOfFile: 0x6282,
  readOnly: 0x6982,
  noFileSelected: 0x6986,
  notFound: 0x6a82,
  wrongP1P2: 0x6a86,
  offsetOutOfRange: 0x6b00,
  wrongLength: 0x6700,
  insNotSupported: 0x6d00,
  claNotSupported: 0x6e00,
} as const;

/** The capability container: CCLEN 15, mapping 2.0, MLe, MLc, NDEF file control TLV (E104, size, open read/write). */
export const CAPABILITY_CONTAINER = Uint8Array.of(
  0x00,
  0x0f,
  0x20,
  MLE >> 8,
  MLE & 0xff,
  MLC >> 8,
  MLC & 0xff,
  0x04,
  0x06,
  0xe1,
  0x04,
  NDEF_FILE_SIZE >> 8,
  NDEF_FILE_SIZE & 0xff,
  0x00,
  0x00,
);

export interface Type4State {
  appSelected: boolean;
  file: 'cc' | 'ndef' | null;
  /** The NDEF file: NLEN (2 bytes, big endian) then the message. */
  ndef: Uint8Array;
}

/** What an APDU means beyond its answer. */
export type Type4Outcome =
  | { type: 'app-selected' }
  /** NLEN set to 0: the phone starts writing a message. */
  | { type: 'write-started' }
  /** A non-zero NLEN written: the message in the file is complete (the commit point of a request). */
  | { type: 'commit'; message: Uint8Array }
  /** A READ BINARY reached the end of the message in the file. */
  | { type: 'message-read' };

export interface Type4Result {
  state: Type4State;
  /** The response APDU (data and status word); null for a commit, whose answer the link actor sends. */
  response: Uint8Array | null;
  outcome?: Type4Outcome;
}

export function initialType4State(): Type4State {
  return { appSelected: false, file: null, ndef: new Uint8Array(NDEF_FILE_SIZE) };
}

export function statusWord(sw: number, data?: Uint8Array): Uint8Array {
  const out = new Uint8Array((data?.length ?? 0) + 2);
  if (data) out.set(data);
  out[out.length - 2] = sw >> 8;
  out[out.length - 1] = sw & 0xff;
  return out;
}

export function nlenOf(ndef: Uint8Array): number {
  return (ndef[0]! << 8) | ndef[1]!;
}

/** The file with `message` in it (NLEN + message); the message must fit (MAX_NDEF_MESSAGE). */
export function withMessage(state: Type4State, message: Uint8Array): Type4State {
  if (message.length > MAX_NDEF_MESSAGE) throw new RangeError('NDEF message longer than the file');
  const ndef = new Uint8Array(NDEF_FILE_SIZE);
  ndef[0] = message.length >> 8;
  ndef[1] = message.length & 0xff;
  ndef.set(message, 2);
  return { ...state, ndef };
}

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Answers one command APDU. Never throws: anything malformed gets its status word. */
export function processApdu(state: Type4State, apdu: Uint8Array): Type4Result {
  const fail = (sw: number): Type4Result => ({ state, response: statusWord(sw) });
  if (apdu.length < 4) return fail(SW.wrongLength);
  const [cla, ins, p1, p2] = apdu as unknown as [number, number, number, number];
  if (cla !== 0x00) return fail(SW.claNotSupported);
  switch (ins) {
    case 0xa4: {
      // SELECT: by name (the NDEF application) or by file id within it.
      // without it a 4-byte APDU reads Lc as undefined, 5 + undefined
      // is NaN, and the length check below refuses it with the same 67 00.
      // Stryker disable next-line ConditionalExpression: see above
      if (apdu.length < 5) return fail(SW.wrongLength);
      const lc = apdu[4]!;
      // Case 3 (no Le) or case 4 (one Le byte, as Android sends it).
      if (apdu.length !== 5 + lc && apdu.length !== 6 + lc) return fail(SW.wrongLength);
      const data = apdu.subarray(5, 5 + lc);
      if (p1 === 0x04) {
        if (p2 !== 0x00 && p2 !== 0x0c) return fail(SW.wrongP1P2);
        if (!equal(data, NDEF_AID)) return fail(SW.notFound);
        return { state: { ...state, appSelected: true, file: null }, response: statusWord(SW.ok), outcome: { type: 'app-selected' } };
      }
      if (p1 === 0x00) {
        if (p2 !== 0x0c && p2 !== 0x00) return fail(SW.wrongP1P2);
        if (!state.appSelected) return fail(SW.notFound);
        if (lc !== 2) return fail(SW.wrongLength);
        const id = (data[0]! << 8) | data[1]!;
        if (id === CC_FILE_ID) return { state: { ...state, file: 'cc' }, response: statusWord(SW.ok) };
        if (id === NDEF_FILE_ID) return { state: { ...state, file: 'ndef' }, response: statusWord(SW.ok) };
        return fail(SW.notFound);
      }
      return fail(SW.wrongP1P2);
    }
    case 0xb0: {
      // READ BINARY: offset P1P2 (15 bits), Le bytes (0 = 256).
      if (state.file === null) return fail(SW.noFileSelected);
      if (apdu.length !== 5) return fail(SW.wrongLength);
      if (p1 & 0x80) return fail(SW.wrongP1P2);
      const offset = (p1 << 8) | p2;
      const le = apdu[4] === 0 ? 256 : apdu[4]!;
      if (le > MLE) return fail(SW.wrongLength);
      const file = state.file === 'cc' ? CAPABILITY_CONTAINER : state.ndef;
      if (offset >= file.length) return fail(SW.offsetOutOfRange);
      const end = Math.min(offset + le, file.length);
      const response = statusWord(end - offset < le ? SW.endOfFile : SW.ok, file.subarray(offset, end));
      const nlen = state.file === 'ndef' ? nlenOf(state.ndef) : 0;
      const readsToEnd = nlen > 0 && offset < 2 + nlen && end >= 2 + nlen;
      return readsToEnd ? { state, response, outcome: { type: 'message-read' } } : { state, response };
    }
    case 0xd6: {
      // UPDATE BINARY: offset P1P2, Lc data bytes; only the NDEF file is writable.
      if (state.file === null) return fail(SW.noFileSelected);
      // a 4-byte APDU fails the length check below
      // (Lc undefined: NaN), and a 5-byte one has Lc 0 there, refused with the same 67 00.
      // Stryker disable next-line ConditionalExpression,EqualityOperator: see above
      if (apdu.length < 5) return fail(SW.wrongLength);
      const lc = apdu[4]!;
      if (apdu.length !== 5 + lc || lc === 0 || lc > MLC) return fail(SW.wrongLength);
      if (state.file === 'cc') return fail(SW.readOnly);
      if (p1 & 0x80) return fail(SW.wrongP1P2);
      const offset = (p1 << 8) | p2;
      if (offset >= NDEF_FILE_SIZE) return fail(SW.offsetOutOfRange);
      if (offset + lc > NDEF_FILE_SIZE) return fail(SW.wrongLength);
      const ndef = state.ndef.slice();
      ndef.set(apdu.subarray(5), offset);
      const next = { ...state, ndef };
      if (offset >= 2) return { state: next, response: statusWord(SW.ok) };
      const nlen = nlenOf(ndef);
      if (nlen === 0) return { state: next, response: statusWord(SW.ok), outcome: { type: 'write-started' } };
      if (nlen > MAX_NDEF_MESSAGE) return fail(SW.wrongLength);
      return { state: next, response: null, outcome: { type: 'commit', message: ndef.slice(2, 2 + nlen) } };
    }
    default:
      return fail(SW.insNotSupported);
  }
}
