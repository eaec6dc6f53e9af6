import type { Phases } from './allocator.js';

/**
 * The current limits other parts of the controller set, as inputs of the allocator loop (services/energy/manager.ts),
 * which composes them with every other limit and alone sends the result to the core:
 * - `ocpp`: the central system's composite schedule (services/ocpp/charging-schedule.ts), with its numberPhases;
 * - `mqtt`: the MQTT load limit as machines/mqtt.ts applies it (refresh time and fallback resolved);
 * - `sim`: the simulator's load-limit control (POST /sim/load-limit), reported as the MQTT load limit: it stands in
 *   for an external load manager;
 * - `pause`: the user's limit of the running charge (services/charge-control.ts): 0 A while paused, else the current
 *   chosen on the dashboard or over MQTT.
 */
export type ExternalLimitSource = 'ocpp' | 'mqtt' | 'sim' | 'pause';

export interface ExternalLimit {
  /** A per phase. */
  amps: number;
  numberPhases?: Phases;
}

export function createLimitInputs() {
  const limits = new Map<ExternalLimitSource, ExternalLimit>();
  const listeners = new Set<() => void>();
  return {
    /** Sets (or with null removes) the limit of `source`; the loop recomputes at once. */
    set(source: ExternalLimitSource, amps: number | null, numberPhases?: Phases): void {
      if (amps === null) limits.delete(source);
      else limits.set(source, numberPhases === undefined ? { amps } : { amps, numberPhases });
      for (const listener of listeners) listener();
    },
    get: (source: ExternalLimitSource): ExternalLimit | null => limits.get(source) ?? null,
    /** Called after every change (the loop's immediate step: a lower limit applies at once). */
    onChange(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type LimitInputs = ReturnType<typeof createLimitInputs>;
