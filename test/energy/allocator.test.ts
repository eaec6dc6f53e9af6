import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  allocate,
  describeAllocation,
  ENERGY_DEFAULTS,
  LIMIT_SOURCES,
  limitsFor,
  wattsToAmps,
  type AllocatorInput,
  type Phases,
} from '../../services/energy/allocator.js';

/**
 * The allocator's invariants (docs/energy.md), proved over random inputs with fast-check: never above any active
 * limit; 0 (pause) or at least 6 A; a stale or missing input gives its documented safe value; the current rises by
 * at most the ramp per step and falls at once; the reason names a limit that is the lowest. Then examples.
 */

const NOW = 1_000_000;
const phases = fc.constantFrom<Phases>(1, 3);
const amps = fc.double({ min: 0, max: 80, noNaN: true });
const age = (maxMs: number) => fc.oneof(fc.integer({ min: 0, max: maxMs }), fc.integer({ min: maxMs + 1, max: 10 * maxMs }));

const input: fc.Arbitrary<AllocatorInput> = fc.record({
  now: fc.constant(NOW),
  phases: fc.record({ actual: phases, wired: phases, switchable: fc.boolean(), forced: fc.option(phases) }),
  hardware: fc.record({ ratedA: fc.integer({ min: 6, max: 32 }), cableA: fc.option(fc.constantFrom(13, 20, 32, 63)) }),
  maxCurrentA: fc.integer({ min: 6, max: 32 }),
  supplyA: fc.tuple(fc.integer({ min: 6, max: 80 }), fc.integer({ min: 6, max: 80 }), fc.integer({ min: 6, max: 80 })),
  ocpp: fc.option(fc.record({ amps: fc.option(amps) }, { requiredKeys: ['amps'] })),
  mqttA: fc.option(amps),
  gridOperator: fc.option(
    fc.record({ value: fc.option(fc.double({ min: 0, max: 30_000, noNaN: true })), at: age(ENERGY_DEFAULTS.gridOperatorMaxAgeMs).map((a) => NOW - a) }),
  ),
  site: fc.option(fc.record({ value: fc.tuple(amps, amps, amps), at: age(ENERGY_DEFAULTS.siteMaxAgeMs).map((a) => NOW - a) })),
  solar: fc.record({
    mode: fc.constantFrom('fast' as const, 'solar' as const, 'minSolar' as const),
    surplusW: fc.option(
      fc.record({ value: fc.double({ min: -5_000, max: 25_000, noNaN: true }), at: age(ENERGY_DEFAULTS.surplusMaxAgeMs).map((a) => NOW - a) }),
    ),
    run: fc.boolean(),
  }),
  schedule: fc.option(fc.record({ allowed: fc.boolean() })),
  previous: fc.option(fc.record({ currentA: fc.oneof(fc.constant(0), fc.double({ min: 6, max: 32, noNaN: true })), phases })),
});

const EPS = 1e-9;

describe('allocator invariants (fast-check)', () => {
  test('never above any active limit', () => {
    fc.assert(
      fc.property(input, (i) => {
        const a = allocate(i);
        for (const l of a.limits) if (l.amps !== null) expect(a.currentA, l.source).toBeLessThanOrEqual(l.amps + EPS);
        for (const line of a.perLineA) expect(line).toBeLessThanOrEqual(a.currentA);
      }),
      { numRuns: 2_000 },
    );
  });

  test('never below 6 A while charging: 0 (a pause) or at least 6 A; a pause exactly when the lowest limit is below 6 A', () => {
    fc.assert(
      fc.property(input, (i) => {
        const a = allocate(i);
        expect(a.currentA === 0 || a.currentA >= 6).toBe(true);
        const lowest = Math.min(...a.limits.map((l) => l.amps ?? Infinity));
        expect(a.currentA === 0).toBe(lowest < 6);
      }),
      { numRuns: 2_000 },
    );
  });

  test('the current rises by at most the ramp per step (from a pause or a phase change: to 6 A) and falls at once to the lowest limit', () => {
    fc.assert(
      fc.property(input, (i) => {
        const a = allocate(i);
        const previous = i.previous && i.previous.phases === i.phases.actual ? i.previous.currentA : 0;
        if (previous < 6) expect(a.currentA).toBeLessThanOrEqual(6);
        else expect(a.currentA).toBeLessThanOrEqual(previous + ENERGY_DEFAULTS.rampUpA + EPS);
        // Falling: never held above the target, and only the ramp keeps it below (0.1 A rounding aside).
        expect(a.currentA).toBeLessThanOrEqual(a.targetA);
        if (a.currentA < a.targetA) expect(a.reason).toBe('ramp');
        else if (a.targetA > 0) expect(Math.min(...a.limits.map((l) => l.amps ?? Infinity)) - a.currentA).toBeLessThan(0.1 + EPS);
      }),
      { numRuns: 2_000 },
    );
  });

  test('the reason is the lowest limit (or the ramp), and every source is reported once', () => {
    fc.assert(
      fc.property(input, (i) => {
        const a = allocate(i);
        expect(a.limits.map((l) => l.source)).toEqual([...LIMIT_SOURCES]);
        if (a.reason !== 'ramp') {
          const lowest = Math.min(...a.limits.map((l) => l.amps ?? Infinity));
          expect(a.limits.find((l) => l.source === a.reason)!.amps).toBe(lowest);
        }
      }),
      { numRuns: 1_000 },
    );
  });

  test('a stale or missing input gives its documented safe value', () => {
    fc.assert(
      fc.property(input, fc.integer({ min: 1, max: 1_000_000 }), (i, late) => {
        const stale = <T>(v: T, maxAge: number) => ({ value: v, at: NOW - maxAge - late });
        const phases = i.phases.actual;
        const source = (x: AllocatorInput, s: string) => limitsFor(x, phases).find((l) => l.source === s)!;
        // Grid operator: the §14a failsafe power.
        const op = source({ ...i, gridOperator: stale(null, ENERGY_DEFAULTS.gridOperatorMaxAgeMs) }, 'gridOperator');
        expect(op).toEqual({ source: 'gridOperator', amps: wattsToAmps(ENERGY_DEFAULTS.gridOperatorFailsafeW, phases), status: 'safe' });
        // Site share: the safe share.
        const site = source({ ...i, site: stale([32, 32, 32] as const, ENERGY_DEFAULTS.siteMaxAgeMs) }, 'site');
        expect(site).toEqual({ source: 'site', amps: ENERGY_DEFAULTS.siteSafeA, status: 'safe' });
        // Solar surplus, stale or missing: none (Solar pauses, Min + Solar keeps 6 A).
        for (const surplusW of [stale(20_000, ENERGY_DEFAULTS.surplusMaxAgeMs), null]) {
          const solar = source({ ...i, solar: { mode: 'solar', surplusW, run: true } }, 'solar');
          expect(solar).toEqual({ source: 'solar', amps: 0, status: 'safe' });
          const min = source({ ...i, solar: { mode: 'minSolar', surplusW, run: true } }, 'solar');
          expect(min).toEqual({ source: 'solar', amps: 6, status: 'safe' });
        }
        // A value from the future (a clock step) is not trusted either.
        expect(source({ ...i, gridOperator: { value: null, at: NOW + late } }, 'gridOperator').status).toBe('safe');
      }),
      { numRuns: 500 },
    );
  });

  test('deterministic: the same input gives the same allocation', () => {
    fc.assert(
      fc.property(input, (i) => {
        expect(allocate(structuredClone(i))).toEqual(allocate(i));
      }),
      { numRuns: 300 },
    );
  });

  test('a higher limit never lowers the allocation (the lowest wins, nothing else)', () => {
    fc.assert(
      fc.property(input, fc.integer({ min: 1, max: 20 }), (i, more) => {
        const before = allocate(i);
        const after = allocate({ ...i, maxCurrentA: i.maxCurrentA + more });
        expect(after.currentA).toBeGreaterThanOrEqual(before.currentA);
      }),
      { numRuns: 1_000 },
    );
  });
});

const base: AllocatorInput = {
  now: NOW,
  phases: { actual: 3, wired: 3, switchable: false, forced: null },
  hardware: { ratedA: 32, cableA: null },
  maxCurrentA: 16,
  supplyA: [32, 32, 32],
  ocpp: null,
  mqttA: null,
  gridOperator: null,
  site: null,
  solar: { mode: 'fast', surplusW: null, run: true },
  schedule: null,
  previous: { currentA: 16, phases: 3 },
};

describe('allocator examples', () => {
  test('without other limits, MaxCurrent limits', () => {
    const a = allocate(base);
    expect(a).toMatchObject({ currentA: 16, phases: 3, perLineA: [16, 16, 16], reason: 'maxCurrent' });
    expect(describeAllocation(a)).toBe('Limited to 16 A by the maximum current setting');
  });

  test('Solar: 6.2 kW of surplus on three phases is 9 A, said in words', () => {
    const a = allocate({ ...base, solar: { mode: 'solar', surplusW: { value: 6_210, at: NOW - 5_000 }, run: true }, previous: { currentA: 10, phases: 3 } });
    expect(a).toMatchObject({ currentA: 9, reason: 'solar' });
    expect(describeAllocation(a)).toBe('Limited to 9 A by solar surplus');
  });

  test('Solar paused by the start/stop logic; Min + Solar keeps 6 A without sun', () => {
    expect(allocate({ ...base, solar: { mode: 'solar', surplusW: { value: 6_210, at: NOW }, run: false } })).toMatchObject({ currentA: 0, reason: 'solar' });
    expect(allocate({ ...base, solar: { mode: 'minSolar', surplusW: { value: -2_000, at: NOW }, run: false } })).toMatchObject({
      currentA: 6,
      reason: 'solar',
    });
  });

  test('the grid operator failsafe: 4.2 kW while the heartbeat is missing (6 A on three phases)', () => {
    const a = allocate({ ...base, gridOperator: { value: null, at: NOW - 301_000 } });
    expect(a).toMatchObject({ currentA: 6, reason: 'gridOperator' });
    expect(a.limits.find((l) => l.source === 'gridOperator')).toMatchObject({ status: 'safe' });
  });

  test('a schedule outside its window pauses, in words', () => {
    const a = allocate({ ...base, schedule: { allowed: false } });
    expect(a).toMatchObject({ currentA: 0, reason: 'schedule' });
    expect(describeAllocation(a)).toBe('Paused by the schedule');
  });

  test('rising from a pause starts at 6 A, then 2 A per step; a fall is at once', () => {
    let previous: AllocatorInput['previous'] = { currentA: 0, phases: 3 };
    const seen: number[] = [];
    for (let step = 0; step < 7; step++) {
      const a = allocate({ ...base, previous });
      seen.push(a.currentA);
      previous = { currentA: a.currentA, phases: a.phases };
    }
    expect(seen).toEqual([6, 8, 10, 12, 14, 16, 16]);
    expect(allocate({ ...base, mqttA: 7, previous }).currentA).toBe(7);
  });

  test('one phase uses L1 only: the supply limit of L1, the current on L1', () => {
    const a = allocate({
      ...base,
      phases: { actual: 1, wired: 3, switchable: true, forced: null },
      supplyA: [10, 40, 40],
      previous: { currentA: 10, phases: 1 },
    });
    expect(a).toMatchObject({ currentA: 10, perLineA: [10, 0, 0], reason: 'supply' });
  });

  test('phases preferred: one below 3 × 6 A of surplus, three from it (with the hysteresis coming from one)', () => {
    const solar = (w: number) => ({ mode: 'solar' as const, surplusW: { value: w, at: NOW }, run: true });
    const switchable = (actual: Phases) => ({ actual, wired: 3 as Phases, switchable: true, forced: null });
    expect(allocate({ ...base, phases: switchable(3), solar: solar(4_000) }).preferredPhases).toBe(1);
    expect(allocate({ ...base, phases: switchable(3), solar: solar(4_140) }).preferredPhases).toBe(3);
    expect(allocate({ ...base, phases: switchable(1), solar: solar(4_200) }).preferredPhases).toBe(1);
    expect(allocate({ ...base, phases: switchable(1), solar: solar(4_340) }).preferredPhases).toBe(3);
    // Forced, the central system's numberPhases, and an installation without a switch.
    expect(allocate({ ...base, phases: { ...switchable(1), forced: 3 }, solar: solar(0) }).preferredPhases).toBe(3);
    expect(allocate({ ...base, phases: switchable(3), ocpp: { amps: 16, numberPhases: 1 } }).preferredPhases).toBe(1);
    expect(allocate({ ...base, solar: solar(0) }).preferredPhases).toBe(3);
  });
});
