import { expect, test } from 'vitest';
import { nextPageTurn } from '../../db/client.js';
import { turnCounter } from '../turns.js';

/** A reader of `pages` pages that waits for its page turn between them; the turns at which it read each. */
async function reader(pages: number, turn: () => number): Promise<number[]> {
  const readAt = [turn()];
  for (let i = 1; i < pages; i++) {
    await nextPageTurn();
    readAt.push(turn());
  }
  return readAt;
}

test('a page reader alone reads a page every turn', async () => {
  const turns = turnCounter();
  const readAt = await reader(20, turns.now);
  turns.stop();
  expect(readAt.slice(1).map((t, i) => t - readAt[i]!)).toEqual(Array(19).fill(1));
});

test('readers at the same time read one page a turn between them, each in its turn', async () => {
  const turns = turnCounter();
  const readers = await Promise.all([reader(10, turns.now), reader(10, turns.now), reader(10, turns.now)]);
  turns.stop();
  // The pages after each reader's first: never two in one turn, and none of the readers waits more than 3 turns.
  const later = readers.flatMap((readAt) => readAt.slice(1));
  expect(new Set(later).size).toBe(later.length);
  for (const readAt of readers) for (let i = 1; i < readAt.length; i++) expect(readAt[i]! - readAt[i - 1]!).toBeLessThanOrEqual(3);
  // 27 pages after the first ones, one a turn.
  expect(Math.max(...later) - Math.min(...later)).toBe(26);
});
