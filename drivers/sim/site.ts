/**
 * The simulated site around the charge point: a house (base load with steps), a PV system (a sunny or a cloudy day,
 * time-compressed), the grid meter between them and the grid (an SDM630 twin: grid = house + EV − PV per line), and
 * a ripple-control receiver's contact. The EV's power comes from the simulated charging meter. Time comes only from
 * `now()`, so a test clock gives exact results.
 */
import { Listeners } from '../listeners.js';
import type { ContactInput, Unsubscribe } from '../types.js';
import { createSimulatedSdm630, type SimulatedSdm630 } from './sdm630-device.js';
import { DAY_PROFILES, houseLoadW, pvPowerW, type DayProfile, type LinePowers } from './day-profiles.js';

export interface SimDay {
  /** `off`: night and no appliances (the house's base load only). */
  profile: DayProfile | 'off';
  /** Simulated seconds per real second (1 to 3600). */
  speed: number;
  /** The hour of the simulated day when it was set (0 ≤ hour < 24). */
  startHour: number;
  /** The PV system's peak power (W). */
  peakW: number;
  /** The seed of the clouds and the appliances. */
  seed: number;
}

export interface SiteState {
  day: SimDay & { hour: number };
  houseW: LinePowers;
  /** The extra load set from /sim (W per line). */
  houseStepW: LinePowers;
  pvW: LinePowers;
  evW: LinePowers;
  /** What the grid meter measures: house + EV − PV (W per line, import positive). */
  gridW: LinePowers;
  rippleContactClosed: boolean;
}

/**
 * What the site is set to (the day, when it was set, the house step, the contact): the charge-point core's twin of
 * the site, whose grid meter and contact the core reads, is given the controller's with `configure`.
 */
export interface SiteConfiguration {
  day: SimDay;
  /** When the day was set (the `now()` clock, ms). */
  dayStartedAt: number;
  houseStepW: LinePowers;
  rippleContactClosed: boolean;
}

export interface SimulatedSite {
  setDay(day: Partial<SimDay>): void;
  /** An extra house load per line (W, 0..30,000 each): a step of the house load. */
  setHouseStep(watts: LinePowers): void;
  setRippleContact(closed: boolean): void;
  state(): SiteState;
  configuration(): SiteConfiguration;
  /** Takes another site's configuration (checked by the caller: the core's protocol). */
  configure(configuration: SiteConfiguration): void;
  /** Called after every change of the configuration. */
  onConfigured(listener: (configuration: SiteConfiguration) => void): Unsubscribe;
  /** The grid meter's twin (an SDM630 at `gridMeterAddress`). */
  gridMeter: SimulatedSdm630;
  /** The ripple-control receiver's contact. */
  rippleContact: ContactInput;
}

export const SPEED_RANGE = [1, 3600] as const;
export const PEAK_RANGE = [0, 50_000] as const;
export const MAX_HOUSE_STEP_W = 30_000;
export const DEFAULT_DAY: SimDay = { profile: 'off', speed: 1, startHour: 8, peakW: 9_000, seed: 1 };

const HOUR_MS = 3_600_000;

function check(ok: boolean, message: string): void {
  if (!ok) throw new Error(message);
}

export interface SimulatedSiteOptions {
  now: () => number;
  /** The EV's power per line now (W), from the simulated charging meter. */
  evPowerW: () => LinePowers;
  gridMeterAddress: () => number;
  voltageV?: number;
}

export function createSimulatedSite(options: SimulatedSiteOptions): SimulatedSite {
  const { now, evPowerW } = options;
  const voltageV = options.voltageV ?? 230;
  let day: SimDay = { ...DEFAULT_DAY };
  let dayStartedAt = now();
  let houseStepW: LinePowers = [0, 0, 0];
  let contactClosed = false;
  const contactListeners = new Listeners<[boolean]>();
  const configuredListeners = new Listeners<[SiteConfiguration]>();
  const configuration = (): SiteConfiguration => ({ day: { ...day }, dayStartedAt, houseStepW: [...houseStepW], rippleContactClosed: contactClosed });
  const configured = () => configuredListeners.emit(configuration());
  const setContact = (closed: boolean) => {
    if (closed === contactClosed) return;
    contactClosed = closed;
    contactListeners.emit(closed);
  };

  const hour = () => (((day.startHour + ((now() - dayStartedAt) * day.speed) / HOUR_MS) % 24) + 24) % 24;
  const measure = () => {
    const h = hour();
    const base = day.profile === 'off' ? houseLoadW(0, day.seed) : houseLoadW(h, day.seed);
    const houseW = base.map((w, i) => w + houseStepW[i]!) as LinePowers;
    const pvW = day.profile === 'off' ? ([0, 0, 0] as LinePowers) : pvPowerW(day.profile, h, day.peakW, day.seed);
    const evW = evPowerW();
    const gridW = houseW.map((w, i) => w + evW[i]! - pvW[i]!) as LinePowers;
    return { h, houseW, pvW, evW, gridW };
  };

  return {
    setDay(next) {
      const merged = { ...day, ...next };
      check((['off', ...DAY_PROFILES] as string[]).includes(merged.profile), `profile must be off, ${DAY_PROFILES.join(' or ')}`);
      check(
        Number.isFinite(merged.speed) && merged.speed >= SPEED_RANGE[0] && merged.speed <= SPEED_RANGE[1],
        `speed must be ${SPEED_RANGE[0]} to ${SPEED_RANGE[1]}`,
      );
      check(Number.isFinite(merged.startHour) && merged.startHour >= 0 && merged.startHour < 24, 'startHour must be from 0 to below 24');
      check(
        Number.isFinite(merged.peakW) && merged.peakW >= PEAK_RANGE[0] && merged.peakW <= PEAK_RANGE[1],
        `peakW must be ${PEAK_RANGE[0]} to ${PEAK_RANGE[1]}`,
      );
      check(Number.isInteger(merged.seed) && merged.seed >= 0 && merged.seed <= 0xffffffff, 'seed must be a whole number from 0 to 4294967295');
      // A new speed or profile without a new start hour goes on from the hour reached.
      if (next.startHour === undefined) merged.startHour = hour();
      day = merged;
      dayStartedAt = now();
      configured();
    },
    setHouseStep(watts) {
      check(
        Array.isArray(watts) && watts.length === 3 && watts.every((w) => Number.isFinite(w) && w >= 0 && w <= MAX_HOUSE_STEP_W),
        `the house step must be three numbers of W from 0 to ${MAX_HOUSE_STEP_W}`,
      );
      houseStepW = [watts[0], watts[1], watts[2]];
      configured();
    },
    setRippleContact(closed) {
      check(typeof closed === 'boolean', 'closed must be true or false');
      setContact(closed);
      configured();
    },
    configuration,
    configure(c) {
      day = { ...c.day };
      dayStartedAt = c.dayStartedAt;
      houseStepW = [...c.houseStepW];
      setContact(c.rippleContactClosed);
    },
    onConfigured: (listener) => configuredListeners.add(listener),
    state() {
      const { h, houseW, pvW, evW, gridW } = measure();
      return { day: { ...day, hour: h }, houseW, houseStepW: [...houseStepW], pvW, evW, gridW, rippleContactClosed: contactClosed };
    },
    // The address the settings give now: an installer may change it while the simulation runs.
    gridMeter: createSimulatedSdm630(options.gridMeterAddress, () => {
      const { gridW } = measure();
      return { voltagesV: [voltageV, voltageV, voltageV], powersW: gridW };
    }),
    rippleContact: {
      closed: () => contactClosed,
      onChange: (listener) => contactListeners.add(listener),
    },
  };
}
