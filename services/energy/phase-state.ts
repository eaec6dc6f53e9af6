import type { AllocatorInput, Phases } from './allocator.js';

/**
 * The phase count as the allocator needs it: connected now, wired, whether a phase switch is installed, and a
 * forced count. For now the `Phases` setting with no switch; the core's phase switch (issue 30, item 3) replaces
 * this one function.
 */
export function phaseStateOf(settingPhases: number): AllocatorInput['phases'] {
  const wired: Phases = settingPhases === 1 ? 1 : 3;
  return { actual: wired, wired, switchable: false, forced: null };
}
