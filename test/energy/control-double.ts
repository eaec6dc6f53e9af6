import { describeAllocation, LIMIT_SOURCES, type LimitReport, type SolarMode } from '../../services/energy/allocator.js';
import type { EnergyControl, EnergyStatus } from '../../services/energy/contracts.js';
import { OperationError } from '../../services/errors.js';

/**
 * A stand-in for the allocator loop's `EnergyControl` (services/energy/contracts.ts), for the tests of what shows
 * and steers energy management (MQTT, Home Assistant, the web interface): its status is what the test sets, a
 * watcher hears every change, and `setMode` changes the mode (or fails as the test asks).
 */
export interface EnergyControlDouble extends EnergyControl {
  /** Changes the status (the description follows currentA and reason) and tells the watchers. */
  set(change: Partial<EnergyStatus>): void;
  /** The modes setMode was called with, in order. */
  modes: SolarMode[];
  /** The next setMode fails with this reason (an OperationError, as a refusal). */
  refuseNext: string | null;
}

/** Every source's limit: 16 A (`fresh`) for the given ones, `off` for the others. */
export function limitsOf(amps: Partial<Record<(typeof LIMIT_SOURCES)[number], number>>): LimitReport[] {
  return LIMIT_SOURCES.map((source) => (amps[source] === undefined ? { source, amps: null, status: 'off' } : { source, amps: amps[source]!, status: 'fresh' }));
}

/** Solar mode, 9 A on one phase limited by the surplus, a grid meter exporting on L1. */
export const SOLAR_STATUS: EnergyStatus = {
  mode: 'solar',
  currentA: 9,
  phases: 1,
  reason: 'solar',
  description: 'Limited to 9 A by solar surplus',
  limits: limitsOf({ solar: 9, maxCurrent: 16, hardware: 32 }),
  inputs: { gridPowerW: [-150.4, 20, 30], surplusW: 2170.2, gridOperatorW: null, siteShareA: null },
  solar: 'charging',
  today: { solarWh: 3210.6, gridWh: 450 },
};

export function energyControlDouble(initial: EnergyStatus = SOLAR_STATUS): EnergyControlDouble {
  let status = initial;
  const listeners = new Set<(s: EnergyStatus) => void>();
  const double: EnergyControlDouble = {
    modes: [],
    refuseNext: null,
    status: () => status,
    watch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async setMode(mode) {
      if (double.refuseNext) {
        const reason = double.refuseNext;
        double.refuseNext = null;
        throw new OperationError('conflict', reason);
      }
      double.modes.push(mode);
      double.set({ mode, solar: mode === 'fast' ? 'bypassed' : status.solar });
    },
    set(change) {
      const next = { ...status, ...change };
      status = { ...next, description: describeAllocation(next) };
      for (const listener of listeners) listener(status);
    },
  };
  return double;
}
