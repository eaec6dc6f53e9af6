import type { TagTechnology } from '../types.js';

/**
 * The simulated PN532's RF field: cards tapped one after another (each enters, is read once and leaves; the next enters
 * after the reader saw the field empty), and the ISO 14443 facts of those cards and of a phone's activation.
 */

/** Wire mode: RF time of one passive activation attempt of the reader (5 ms field guard time, REQA to SELECT). */
export const PASSIVE_ATTEMPT_MS = 6;
/** Wire mode: a phone activating the emulated tag (anticollision, SELECT, RATS/ATS at 106 kbps). */
export const TARGET_ACTIVATION_MS = 5;
/** SEL_RES bit: ISO 14443-4 compliant. */
export const SEL_RES_ISO14443_4 = 0x20;
/** The ATS a simulated ISO 14443-4 card answers to RATS (TL, T0, TA, TB, TC). */
export const CARD_ATS = [0x05, 0x78, 0x80, 0x70, 0x02];

/** A card in the RF field. */
export interface Card {
  uid: Uint8Array;
  selRes: number;
}

/** The cards of the field: taps waiting to enter, the one in the field, and whether the field must be seen empty. */
export function createCardsInField() {
  const queue: Card[] = [];
  let card: Card | undefined;
  let mustSeeEmpty = false;

  /**
   * A search of the reader (InListPassiveTarget): the card that answers it, or undefined. A card that does not answer
   * leaves unread; after a card left, the field is seen empty once (the search ends there unless `untilFound`, the
   * reader's infinite retries) before the next tap enters.
   */
  function read(matches: (c: Card) => boolean, untilFound: boolean): Card | undefined {
    if (card && matches(card)) {
      const c = card;
      card = undefined;
      mustSeeEmpty = true;
      return c;
    }
    if (card) {
      // A card that does not answer this search (another modulation, another UID): it leaves unread.
      card = undefined;
      mustSeeEmpty = true;
    }
    if (mustSeeEmpty) {
      mustSeeEmpty = false;
      if (!untilFound) return undefined;
    }
    const next = queue.shift();
    if (next) {
      card = next;
      return read(matches, untilFound);
    }
    return undefined;
  }

  return {
    read,
    /** A card is tapped: it queues behind the earlier taps. */
    tap(uid: string, technology: TagTechnology): void {
      queue.push({ uid: Uint8Array.from(Buffer.from(uid, 'hex')), selRes: technology === 'NFC' ? SEL_RES_ISO14443_4 : 0x08 });
    },
  };
}
