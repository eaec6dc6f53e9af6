import { describe, expect, test } from 'vitest';
import { seededRandom } from '../../drivers/seeded-random.js';
import { spread } from '../../bin/dev/soak-report.js';

describe("the soak's plan over its walls", () => {
  test('shares the sessions out evenly and the kills over every wall but wall 0', () => {
    const plan = spread(10_000, 50, 10, seededRandom(1));
    expect(plan.map((p) => p.sessions)).toEqual(Array(10).fill(1000));
    expect(plan[0]!.killAt.size).toBe(0);
    expect(plan.slice(1).map((p) => p.killAt.size)).toEqual([6, 6, 6, 6, 6, 5, 5, 5, 5]);
    for (const p of plan) for (const k of p.killAt) expect(k).toBeLessThan(p.sessions);
  });

  test('an uneven share: the first walls take one more session', () => {
    expect(spread(23, 2, 3, seededRandom(2)).map((p) => [p.sessions, p.killAt.size])).toEqual([
      [8, 0],
      [8, 1],
      [7, 1],
    ]);
  });

  test('a single wall is killed in the first 70 % of its sessions only, and not more often than it has sessions there', () => {
    const [only] = spread(100, 60, 1, seededRandom(3));
    expect(only!.killAt.size).toBe(60);
    expect(Math.max(...only!.killAt)).toBeLessThan(70);
    expect(() => spread(100, 71, 1, seededRandom(3))).toThrow('71 kills for wall 0');
  });
});
