import type { RfidReader } from '../types.js';

/**
 * The RFID reader of the `rpi` backend until the NFC/PN532 work brings the real one: it never emits a tag and logs
 * nothing. Tags can be presented only on simulated hardware (`SimulatedPlant.presentTag`).
 */
export function createNoRfidReader(): RfidReader {
  return { onTag: () => () => {} };
}
