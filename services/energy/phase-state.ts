import type { PhaseSwitchMode } from '../core/phase-switch-mode.js';
import type { CoreState } from '../core/protocol.js';
import type { AllocatorInput, Phases } from './allocator.js';

/**
 * The phase count as the allocator needs it: connected now, wired, whether a phase switch is installed (the core
 * reports it: GPIO_PHASE_SWITCH), and a count forced by the setting PhaseSwitchMode. Before the core's first state:
 * the `Phases` setting, no switch.
 */
export function phaseStateOf(settingPhases: number, core?: CoreState['phases'], mode: PhaseSwitchMode = 'auto'): AllocatorInput['phases'] {
  const wired: Phases = core?.wired ?? (settingPhases === 1 ? 1 : 3);
  const actual: Phases = core?.actual ?? wired;
  const switchable = (core?.switchable ?? false) && mode !== 'never';
  const forced: Phases | null = !switchable ? null : mode === 'force1' ? 1 : mode === 'force3' ? 3 : null;
  return { actual, wired, switchable, forced };
}
