/**
 * The simulated house and PV system over a day, deterministic: the same seed gives the same day, so tests and the
 * energy benchmark repeat. Time is the hour of the simulated day (0 ≤ hour < 24, fractions allowed); powers are W
 * per line L1, L2, L3.
 */

import { seededRandom } from '../seeded-random.js';

export const DAY_PROFILES = ['sunny', 'cloudy'] as const;
export type DayProfile = (typeof DAY_PROFILES)[number];
export type LinePowers = [number, number, number];

/** Sunrise and sunset of the simulated (summer) day, hours. */
export const SUNRISE_HOUR = 6;
export const SUNSET_HOUR = 20;
/** Share of the clear-sky power that passes a cloud. */
export const CLOUD_TRANSMISSION = 0.25;
/** Sun and cloud alternate every 1 to 26 minutes on the cloudy day (docs/energy.md: the solar machine's worst case). */
export const CLOUD_SPELL_MINUTES = [1, 26] as const;
/** The house's base load per line (fridge, standby, network: 450 W in all). */
export const HOUSE_BASE_W: LinePowers = [180, 120, 150];

/** Clear-sky PV power (W, all lines): a sine from sunrise to sunset with `peakW` at noon. */
export function clearSkyW(hour: number, peakW: number): number {
  if (hour <= SUNRISE_HOUR || hour >= SUNSET_HOUR) return 0;
  return peakW * Math.sin((Math.PI * (hour - SUNRISE_HOUR)) / (SUNSET_HOUR - SUNRISE_HOUR));
}

/** The cloudy day's spells: the hours at which sun and cloud change, starting in sun at midnight. */
function cloudChanges(seed: number): number[] {
  const random = seededRandom(seed);
  const [min, max] = CLOUD_SPELL_MINUTES;
  const changes: number[] = [];
  for (let hour = 0; hour < 24;) {
    hour += (min + random() * (max - min)) / 60;
    changes.push(hour);
  }
  return changes;
}

const cloudCache = new Map<number, number[]>();

/** Whether a cloud covers the sun at `hour` of the cloudy day of `seed`. */
export function cloudAt(hour: number, seed: number): boolean {
  let changes = cloudCache.get(seed);
  if (!changes) cloudCache.set(seed, (changes = cloudChanges(seed)));
  let passed = 0;
  while (passed < changes.length && changes[passed]! <= hour) passed++;
  return passed % 2 === 1;
}

/** The PV system's power per line (W; a three-phase inverter: equal on each line). */
export function pvPowerW(profile: DayProfile, hour: number, peakW: number, seed: number): LinePowers {
  const total = clearSkyW(hour, peakW) * (profile === 'cloudy' && cloudAt(hour, seed) ? CLOUD_TRANSMISSION : 1);
  return [total / 3, total / 3, total / 3];
}

/** A household appliance running once in the day: on one line (0..2) or all three (3). */
interface Appliance {
  line: 0 | 1 | 2 | 3;
  fromHour: number;
  toHour: number;
  watts: number;
}

/** The house's appliances of the day of `seed`: 10 runs of 5 to 60 minutes from 06:00 to 22:00, 300 to 3,000 W. */
function appliances(seed: number): Appliance[] {
  const random = seededRandom(seed ^ 0x5eed);
  return Array.from({ length: 10 }, () => {
    const fromHour = 6 + random() * 16;
    const line = Math.floor(random() * 4) as Appliance['line'];
    return { line, fromHour, toHour: fromHour + (5 + random() * 55) / 60, watts: Math.round(300 + random() * 2_700) };
  });
}

const applianceCache = new Map<number, Appliance[]>();

/** The house's load per line (W): the base load and the appliances running at `hour` (load steps). */
export function houseLoadW(hour: number, seed: number): LinePowers {
  let list = applianceCache.get(seed);
  if (!list) applianceCache.set(seed, (list = appliances(seed)));
  const load: LinePowers = [...HOUSE_BASE_W];
  for (const a of list) {
    if (hour < a.fromHour || hour >= a.toHour) continue;
    if (a.line === 3) for (let i = 0; i < 3; i++) load[i]! += a.watts / 3;
    else load[a.line] += a.watts;
  }
  return load;
}
