import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  allocateSite,
  applyShare,
  brokerLostShare,
  peerStatus,
  safeShareA,
  SITE_DEFAULTS,
  SITE_MAX_CHARGERS,
  SITE_MIN_CHARGERS,
  type AppliedShare,
  type PeerRecord,
  type SiteInput,
} from '../../services/energy/site-share.js';

/**
 * The site share's invariants (docs/energy.md, "Site"), proved with fast-check for 2 to 16 chargers: the shares and
 * what is held back never sum above the site limit on any line; every charger computes the same shares whatever
 * order it received the messages in; each share is 0 (paused) or from 6 A to the charger's demand; a higher share is
 * applied only after it held for the raise delay, a lower one at once. Then examples.
 */

const NOW = 10_000_000;
const LINES = [[0, 1, 2], [0], [1], [2]] as const;

const peer = (id: string): fc.Arbitrary<PeerRecord> =>
  fc.record({
    id: fc.constant(id),
    demandA: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 32, noNaN: true })),
    lines: fc.constantFrom(...LINES),
    priority: fc.integer({ min: 0, max: 2 }),
    arrivedAt: fc.integer({ min: 0, max: NOW }),
    drawA: fc.tuple(fc.double({ min: 0, max: 32, noNaN: true }), fc.double({ min: 0, max: 32, noNaN: true }), fc.double({ min: 0, max: 32, noNaN: true })),
    receivedAt: fc.integer({ min: NOW - 2_000_000, max: NOW }),
    willSeen: fc.boolean(),
  });

const site: fc.Arbitrary<SiteInput> = fc.integer({ min: SITE_MIN_CHARGERS, max: SITE_MAX_CHARGERS }).chain((n) =>
  fc.record({
    now: fc.constant(NOW),
    limitA: fc.tuple(fc.integer({ min: 16, max: 250 }), fc.integer({ min: 16, max: 250 }), fc.integer({ min: 16, max: 250 })),
    gridA: fc.option(
      fc.record({
        value: fc.tuple(
          fc.double({ min: 0, max: 300, noNaN: true }),
          fc.double({ min: 0, max: 300, noNaN: true }),
          fc.double({ min: 0, max: 300, noNaN: true }),
        ),
        at: fc.integer({ min: NOW - 60_000, max: NOW }),
      }),
    ),
    peers: fc.tuple(...Array.from({ length: n }, (_, i) => peer(`charger-${String(i).padStart(2, '0')}`))),
  }),
);
const fairness = fc.constantFrom('equal' as const, 'inOrder' as const);

const EPS = 1e-6;

describe('site share invariants (fast-check, 2 to 16 chargers)', () => {
  test('the shares and what is held back (house load, lost peers) never sum above the site limit on any line', () => {
    fc.assert(
      fc.property(site, fairness, (input, f) => {
        const result = allocateSite(input, { ...SITE_DEFAULTS, fairness: f });
        for (const line of [0, 1, 2] as const) {
          const shares = input.peers.filter((p) => p.lines.includes(line)).reduce((sum, p) => sum + result.shares.get(p.id)!, 0);
          // A house load alone above the limit leaves nothing to share on that line.
          if (result.reservedA[line] > input.limitA[line]) expect(shares).toBe(0);
          else expect(shares + result.reservedA[line]).toBeLessThanOrEqual(input.limitA[line] + EPS);
        }
      }),
      { numRuns: 1_000 },
    );
  });

  test('every charger computes the same shares, whatever order the messages came in', () => {
    fc.assert(
      fc.property(site, fairness, fc.integer(), (input, f, seed) => {
        const shuffled = [...input.peers].sort((a, b) => ((a.id.charCodeAt(8) * 31 + seed) % 17) - ((b.id.charCodeAt(8) * 31 + seed) % 17));
        const sorted = (m: Map<string, number>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));
        const params = { ...SITE_DEFAULTS, fairness: f };
        expect(sorted(allocateSite({ ...input, peers: shuffled }, params).shares)).toEqual(sorted(allocateSite(input, params).shares));
      }),
      { numRuns: 500 },
    );
  });

  test('each share is 0 (paused) or from 6 A to the demand; lost, dropped and idle chargers get 0', () => {
    fc.assert(
      fc.property(site, fairness, (input, f) => {
        const result = allocateSite(input, { ...SITE_DEFAULTS, fairness: f });
        for (const p of input.peers) {
          const share = result.shares.get(p.id)!;
          expect(share === 0 || (share >= 6 && share <= p.demandA + EPS)).toBe(true);
          const status = result.status.get(p.id)!;
          if (status === 'lost' || status === 'dropped' || p.demandA < 6) expect(share).toBe(0);
        }
      }),
      { numRuns: 1_000 },
    );
  });

  test('with every line able to hold 6 A for everyone, nobody waiting is paused', () => {
    fc.assert(
      fc.property(site, (input) => {
        const fresh = input.peers.map((p) => ({ ...p, receivedAt: NOW, willSeen: false }));
        const roomy = { ...input, gridA: null, peers: fresh, limitA: [6 * fresh.length, 6 * fresh.length, 6 * fresh.length] as const };
        const result = allocateSite(roomy);
        for (const p of fresh) if (p.demandA >= 6) expect(result.shares.get(p.id)).toBeGreaterThanOrEqual(6);
      }),
      { numRuns: 500 },
    );
  });

  test('a higher share is applied only after it was computed for the raise delay, and never above what was computed meanwhile; a lower one at once', () => {
    const steps = fc.array(fc.record({ dt: fc.integer({ min: 0, max: 5_000 }), computed: fc.double({ min: 0, max: 32, noNaN: true }) }), {
      minLength: 1,
      maxLength: 60,
    });
    fc.assert(
      fc.property(steps, (seq) => {
        let applied: AppliedShare = { amps: 0, pending: null };
        let t = 0;
        const history: { t: number; computed: number }[] = [];
        for (const { dt, computed } of seq) {
          t += dt;
          history.push({ t, computed });
          const next = applyShare(applied, computed, t);
          expect(next.amps).toBeLessThanOrEqual(computed);
          if (next.amps > applied.amps) {
            const window = history.filter((h) => h.t >= t - SITE_DEFAULTS.raiseDelayMs);
            for (const h of window) expect(h.computed).toBeGreaterThanOrEqual(next.amps);
            expect(history.some((h) => h.t <= t - SITE_DEFAULTS.raiseDelayMs)).toBe(true);
          }
          applied = next;
        }
      }),
      { numRuns: 1_000 },
    );
  });
});

const charger = (id: string, more: Partial<PeerRecord> = {}): PeerRecord => ({
  id,
  demandA: 16,
  lines: [0, 1, 2],
  priority: 0,
  arrivedAt: 0,
  drawA: [0, 0, 0],
  receivedAt: NOW,
  willSeen: false,
  ...more,
});

describe('site share examples', () => {
  test('two chargers on 25 A share it: 12.5 A each; a third waits, paused (first come)', () => {
    const two = allocateSite({ now: NOW, limitA: [25, 25, 25], gridA: null, peers: [charger('a', { arrivedAt: 1 }), charger('b', { arrivedAt: 2 })] });
    expect([...two.shares]).toEqual([
      ['a', 12.5],
      ['b', 12.5],
    ]);
    const three = allocateSite({
      now: NOW,
      limitA: [16, 16, 16],
      gridA: null,
      peers: [charger('a', { arrivedAt: 1 }), charger('b', { arrivedAt: 2 }), charger('c', { arrivedAt: 3 })],
    });
    expect(Object.fromEntries(three.shares)).toEqual({ a: 8, b: 8, c: 0 });
  });

  test('priority before arrival; in order fills the first to its demand', () => {
    const peers = [charger('a', { arrivedAt: 1 }), charger('b', { arrivedAt: 2, priority: 1 })];
    expect(Object.fromEntries(allocateSite({ now: NOW, limitA: [20, 20, 20], gridA: null, peers }, { ...SITE_DEFAULTS, fairness: 'inOrder' }).shares)).toEqual({
      a: 6,
      b: 14,
    });
    expect(Object.fromEntries(allocateSite({ now: NOW, limitA: [10, 10, 10], gridA: null, peers }).shares)).toEqual({ a: 0, b: 10 });
  });

  test('a grid meter closes the loop: the house load (grid less the chargers) is held back', () => {
    const peers = [charger('a', { drawA: [10, 10, 10] }), charger('b', { drawA: [10, 10, 10] })];
    const result = allocateSite({ now: NOW, limitA: [40, 40, 40], gridA: { value: [35, 28, 20], at: NOW - 1_000 }, peers });
    expect(result.reservedA).toEqual([15, 8, 0]);
    expect(Object.fromEntries(result.shares)).toEqual({ a: 12.5, b: 12.5 });
  });

  test('a stale grid meter holds everyone at the safe share', () => {
    const peers = [charger('a'), charger('b')];
    const result = allocateSite({ now: NOW, limitA: [32, 32, 32], gridA: { value: [0, 0, 0], at: NOW - 60_000 }, peers });
    expect(result.meterStale).toBe(true);
    expect(Object.fromEntries(result.shares)).toEqual({ a: 16, b: 16 });
  });

  test('a silent peer is counted at its last demand; lost (will or timeout) its safe share is reserved; after the reserve time it is dropped', () => {
    const params = SITE_DEFAULTS;
    const at = (quietMs: number, willSeen = false) => charger('b', { receivedAt: NOW - quietMs, willSeen });
    expect(peerStatus(at(params.silentMs - 1), NOW)).toBe('present');
    expect(peerStatus(at(params.silentMs), NOW)).toBe('silent');
    expect(peerStatus(at(params.lostMs), NOW)).toBe('lost');
    expect(peerStatus(at(1_000, true), NOW)).toBe('lost');
    expect(peerStatus(at(params.lostMs + params.reserveMs - 1, true), NOW)).toBe('lost');
    expect(peerStatus(at(params.lostMs + params.reserveMs), NOW)).toBe('dropped');
    expect(peerStatus(at(params.lostMs + params.reserveMs, true), NOW)).toBe('dropped');

    const silent = allocateSite({ now: NOW, limitA: [32, 32, 32], gridA: null, peers: [charger('a'), at(params.silentMs)] });
    expect(Object.fromEntries(silent.shares)).toEqual({ a: 16, b: 16 });
    const lost = allocateSite({ now: NOW, limitA: [32, 32, 32], gridA: null, peers: [charger('a', { demandA: 32 }), at(1_000, true)] });
    expect(lost.reservedA).toEqual([16, 16, 16]);
    expect(Object.fromEntries(lost.shares)).toEqual({ a: 16, b: 0 });
    const dropped = allocateSite({
      now: NOW,
      limitA: [32, 32, 32],
      gridA: null,
      peers: [charger('a', { demandA: 32 }), at(params.lostMs + params.reserveMs, true)],
    });
    expect(Object.fromEntries(dropped.shares)).toEqual({ a: 32, b: 0 });
  });

  test('the safe share: the least line limit over the chargers, 0 below 6 A; without the broker the share only falls to it', () => {
    expect(safeShareA([32, 40, 40], 4)).toBe(8);
    expect(safeShareA([32, 32, 32], 6)).toBe(0);
    // The chargers installed count, even those not seen yet.
    const stale = { now: NOW, limitA: [48, 48, 48] as const, gridA: { value: [0, 0, 0] as const, at: 0 }, peers: [charger('a'), charger('b')] };
    expect(allocateSite(stale).safeA).toBe(24);
    expect(allocateSite({ ...stale, installed: 4 }).safeA).toBe(12);
    expect(brokerLostShare(12, 8)).toBe(8);
    expect(brokerLostShare(6.5, 8)).toBe(6.5);
  });

  test('a new charger joining: the others lower at once, it rises only after the raise delay', () => {
    let a: AppliedShare = { amps: 32, pending: null };
    let b: AppliedShare = { amps: 0, pending: null };
    a = applyShare(a, 16, 0);
    b = applyShare(b, 16, 0);
    expect([a.amps, b.amps]).toEqual([16, 0]);
    b = applyShare(b, 16, SITE_DEFAULTS.raiseDelayMs - 1);
    expect(b.amps).toBe(0);
    b = applyShare(b, 16, SITE_DEFAULTS.raiseDelayMs);
    expect(b.amps).toBe(16);
  });
});
