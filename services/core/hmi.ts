import type { LedPattern } from '../../drivers/types.js';
import type { StateMeta } from '../../machines/charge-cycle.js';

/** The HMI states the status LEDs show, one per charge-cycle state plus `Reading card`. */
export const HMI_STATES = [
  'Available',
  'Authorized',
  'Authorization timed out',
  'Waiting for authorization',
  'Connected',
  'Charging',
  'Paused by vehicle',
  'Paused by charger',
  'Finished',
  'Unavailable',
  'Error',
  'Reading card',
] as const;
export type HmiState = (typeof HMI_STATES)[number];

export const HMI_PATTERNS: Record<HmiState, LedPattern> = {
  Available: { color: 'green', mode: 'steady' },
  Authorized: { color: 'green', mode: 'slow-blink' },
  'Authorization timed out': { color: 'yellow', mode: 'steady' },
  'Waiting for authorization': { color: 'blue', mode: 'slow-blink' },
  Connected: { color: 'blue', mode: 'steady' },
  Charging: { color: 'blue', mode: 'pulse' },
  'Paused by vehicle': { color: 'yellow', mode: 'slow-blink' },
  'Paused by charger': { color: 'yellow', mode: 'pulse' },
  Finished: { color: 'white', mode: 'steady' },
  Unavailable: { color: 'off', mode: 'steady' },
  Error: { color: 'red', mode: 'fast-blink' },
  'Reading card': { color: 'white', mode: 'fast-blink' },
};

/** The HMI state for a charge-cycle state; `Reading card` wins while a card or phone is being read. */
export function hmiState(meta: StateMeta, reading: boolean): HmiState {
  if (reading) return 'Reading card';
  // A fault shows as one, also while it only suspends a transaction.
  if (meta.systemState === 'error') return 'Error';
  switch (meta.ocppState) {
    case 'available':
      return meta.authState === 'auth_timeout' ? 'Authorization timed out' : 'Available';
    case 'preparing':
      return meta.systemState === 'idle' ? 'Authorized' : 'Waiting for authorization';
    case 'charging':
      return 'Charging';
    case 'suspendedev':
      return meta.systemState === 'connected' ? 'Connected' : 'Paused by vehicle';
    case 'suspendedevse':
      return 'Paused by charger';
    case 'finishing':
      return 'Finished';
    case 'unavailable':
      return 'Unavailable';
    case 'faulted':
      return 'Error';
  }
}
