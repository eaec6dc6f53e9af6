import type { Settings } from '../settings/index.js';
import { phaseSwitchModeOf } from '../apply-settings.js';
import type { PhaseSwitchMode } from '../core/phase-switch-mode.js';
import { MODE_OF } from './settings.js';

/** What the allocator loop reads of the settings at each step (services/energy/settings.ts declares them). */
export interface EnergySettings {
  mode: (typeof MODE_OF)[keyof typeof MODE_OF];
  maxCurrentA: number;
  supplyA: [number, number, number];
  phases: number;
  /** The setting PhaseSwitchMode (the core runs the switch; the allocator prefers a count). */
  phaseSwitchMode: PhaseSwitchMode;
  solar: { startMarginW: number; stopMarginW: number; startDelayMs: number; stopDelayMs: number; minChargeMs: number; minPauseMs: number };
  rampUpA: number;
  schedule: string;
  departure: { time: string; energyKWh: number };
  sessionLimits: { energyKWh: number; durationMin: number };
}

export function energySettingsOf(settings: Pick<Settings, 'get'>): EnergySettings {
  const get = settings.get;
  return {
    mode: MODE_OF[get('ChargingMode')],
    maxCurrentA: get('MaxCurrent'),
    supplyA: get('PhaseCurrentLimits'),
    phases: get('Phases'),
    phaseSwitchMode: phaseSwitchModeOf(settings),
    solar: {
      startMarginW: get('SolarStartMargin'),
      stopMarginW: get('SolarStopMargin'),
      startDelayMs: get('SolarStartDelay') * 1000,
      stopDelayMs: get('SolarStopDelay') * 1000,
      minChargeMs: get('SolarMinChargeTime') * 1000,
      minPauseMs: get('SolarMinPause') * 1000,
    },
    rampUpA: get('RampUp'),
    schedule: get('ChargingSchedule'),
    departure: { time: get('DepartureTime'), energyKWh: get('DepartureEnergy') },
    sessionLimits: { energyKWh: get('SessionEnergyLimit'), durationMin: get('SessionDurationLimit') },
  };
}

/** The ChargingMode value of a mode (EnergyControl.setMode persists it). */
export const modeValue = (mode: EnergySettings['mode']): 0 | 1 | 2 => (mode === 'solar' ? 1 : mode === 'minSolar' ? 2 : 0);
