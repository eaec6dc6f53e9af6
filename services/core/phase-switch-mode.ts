/**
 * How the phase count is chosen (setting PhaseSwitchMode): `auto` follows the allocator's wish (the main thread's
 * `phases` message), `force1`/`force3` hold one count, `never` leaves the phase contactor at three phases. A leaf:
 * the core's protocol and its phase switching both name it.
 */
export const PHASE_SWITCH_MODES = ['auto', 'force1', 'force3', 'never'] as const;
export type PhaseSwitchMode = (typeof PHASE_SWITCH_MODES)[number];
