/**
 * NDEF (NFC Forum Data Exchange Format) for the NFC transport: one Well-Known Text record (type `T`) per message.
 * Encoding always writes UTF-8 text with the language `en`, a short record up to 255 payload bytes and a long one
 * beyond. Decoding accepts exactly one complete record and refuses what the transport cannot use with a reason
 * (an `NdefError`), never by throwing anything else.
 */

export const TNF_WELL_KNOWN = 0x01;
const MB = 0x80;
const ME = 0x40;
const CF = 0x20;
const SR = 0x10;
const IL = 0x08;
const TYPE_TEXT = 0x54; // 'T'
const STATUS_UTF16 = 0x80;
const LANGUAGE_LENGTH_MASK = 0x3f;

/** Why a message cannot be used; the message mapping turns it into an error answer. */
export class NdefError extends Error {}

/** One NDEF message holding one Text record with `text` (UTF-8, language `lang`). */
export function encodeTextRecord(text: string, lang = 'en'): Uint8Array {
  const langBytes = new TextEncoder().encode(lang);
  if (langBytes.length > LANGUAGE_LENGTH_MASK) throw new RangeError('language code longer than 63 bytes');
  const textBytes = new TextEncoder().encode(text);
  const payloadLength = 1 + langBytes.length + textBytes.length;
  const short = payloadLength <= 0xff;
  const header = short ? 3 : 6;
  const out = new Uint8Array(header + 1 + payloadLength);
  out[0] = MB | ME | (short ? SR : 0) | TNF_WELL_KNOWN;
  out[1] = 1; // type length
  if (short) out[2] = payloadLength;
  else new DataView(out.buffer).setUint32(2, payloadLength);
  let i = header;
  out[i++] = TYPE_TEXT;
  out[i++] = langBytes.length; // status byte: UTF-8, language length
  out.set(langBytes, i);
  out.set(textBytes, i + langBytes.length);
  return out;
}

/** The text of a message holding exactly one Text record; NdefError for anything else. */
export function decodeTextRecord(message: Uint8Array): string {
  if (message.length < 3) throw new NdefError('The NDEF message is shorter than a record header');
  const flags = message[0]!;
  if (flags & CF) throw new NdefError('Chunked NDEF records are not supported: send the request as one record');
  if (!(flags & MB) || !(flags & ME)) throw new NdefError('The NDEF message must hold exactly one record');
  if ((flags & 0x07) !== TNF_WELL_KNOWN) throw new NdefError('The NDEF record must be a well-known Text record (TNF 1, type "T")');
  const typeLength = message[1]!;
  let i = 2;
  let payloadLength: number;
  if (flags & SR) payloadLength = message[i++]!;
  else {
    // Stryker disable next-line EqualityOperator: with exactly the four length bytes there is no type byte, refused below with the same reason.
    if (message.length < i + 4) throw new NdefError('The NDEF record header is truncated');
    payloadLength = new DataView(message.buffer, message.byteOffset, message.byteLength).getUint32(i);
    i += 4;
  }
  let idLength = 0;
  if (flags & IL) {
    if (message.length <= i) throw new NdefError('The NDEF record header is truncated');
    idLength = message[i++]!;
  }
  if (message.length < i + typeLength + idLength) throw new NdefError('The NDEF record header is truncated');
  if (typeLength !== 1 || message[i] !== TYPE_TEXT) throw new NdefError('The NDEF record must be a well-known Text record (TNF 1, type "T")');
  i += typeLength + idLength;
  const end = i + payloadLength;
  if (end > message.length) throw new NdefError('The NDEF record is shorter than its payload length says');
  if (end < message.length) throw new NdefError('The NDEF message must hold exactly one record (bytes follow the record)');
  if (payloadLength < 1) throw new NdefError('The Text record has no status byte');
  const status = message[i]!;
  if (status & STATUS_UTF16) throw new NdefError('UTF-16 Text records are not supported: send the text as UTF-8');
  const textStart = i + 1 + (status & LANGUAGE_LENGTH_MASK);
  if (textStart > end) throw new NdefError("The Text record's language code is longer than its payload");
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(message.subarray(textStart, end));
  } catch {
    throw new NdefError('The Text record is not valid UTF-8');
  }
}
