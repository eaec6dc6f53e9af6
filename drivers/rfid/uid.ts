import type { TagTechnology } from '../types.js';

/** An RFID tag's UID as hex: 4, 7 or 10 bytes (ISO/IEC 14443-3 single, double and triple size). */
export const RFID_UID = /^(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{14}|[0-9a-fA-F]{20})$/;

/**
 * A tag presented to the simulated reader: a 4, 7 or 10-byte UID as hex (8, 14 or 20 digits) and its technology.
 * Returns the UID upper-case, as readers report it; throws an Error saying what is wrong.
 */
export function checkTagUid(uid: unknown, technology: unknown = 'RFID'): { uid: string; technology: TagTechnology } {
  if (typeof uid !== 'string' || !RFID_UID.test(uid)) {
    throw new Error(`tag UID must be 4, 7 or 10 bytes as hex (8, 14 or 20 hex digits), got ${JSON.stringify(uid)}`);
  }
  if (technology !== 'RFID' && technology !== 'NFC') throw new Error(`tag technology must be RFID or NFC (got ${JSON.stringify(technology)})`);
  return { uid: uid.toUpperCase(), technology };
}
