import type { RfidReader } from '../types.js';

/** A reader that never emits a tag: the `rpi` devices without a PN532 (drivers/pn532 is the real reader). */
export function createNoRfidReader(): RfidReader {
  return { onTag: () => () => {} };
}
