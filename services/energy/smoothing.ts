/**
 * The surplus smoothing (docs/energy.md, "Solar"): fast attack, slow decay, as OpenEVSE's solar divert. A rising
 * surplus is followed within seconds (the sun came out: use it); a falling one slowly, so a passing cloud's dip is
 * ridden out at the current the EV already draws instead of stepping the current down and up again. The start/stop
 * delays of machines/solar.ts decide about contactor operations; this only steadies the current. Pure: time comes in.
 */

export interface SmoothingParams {
  /** Time constant while the surplus rises (ms). */
  riseTauMs: number;
  /** Time constant while it falls (ms). */
  fallTauMs: number;
}

/** OpenEVSE's factors per ~1 s sample (0.4 attack, 0.05 decay) as time constants. */
export const SMOOTHING_DEFAULTS: SmoothingParams = { riseTauMs: 2_000, fallTauMs: 20_000 };

export interface Smoothed {
  value: number;
  /** When the last sample was taken (ms). */
  at: number;
}

/** The smoothed value after `sample` taken at `at`; the first sample (or one after a gap, or time going back) is taken as is. */
export function smooth(previous: Smoothed | null, sample: number, at: number, params: SmoothingParams = SMOOTHING_DEFAULTS, maxGapMs = 60_000): Smoothed {
  if (previous === null || at < previous.at || at - previous.at > maxGapMs) return { value: sample, at };
  const dt = at - previous.at;
  const tau = sample >= previous.value ? params.riseTauMs : params.fallTauMs;
  const alpha = 1 - Math.exp(-dt / tau);
  return { value: previous.value + alpha * (sample - previous.value), at };
}
