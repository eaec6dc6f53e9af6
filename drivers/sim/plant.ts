/**
 * The simulated plant: an electric vehicle on the charging cable, the energy meter's physics and the simulated twin
 * of every device, for HARDWARE=sim and for tests. Time comes only from the injected `now()` (milliseconds), so a test
 * clock gives exact results.
 *
 * Physics: the EV draws current only when the contactor is actually closed, it requests charge (pilot C or D) and
 * the pilot carries a valid PWM (8..97 %): I = min(current announced by the duty, EV's maximum current); otherwise 0,
 * also when it stays in C without PWM. P = I × voltage × phases. The meter register integrates P over time; it is
 * kept as an exact sum over the intervals of constant power, so the result does not depend on how often it is read.
 */
import { currentForDuty, checkDuty } from '../control-pilot/pwm.js';
import { checkBeep, DEFAULT_BEEP_MS } from '../buzzer/beep.js';
import { checkLedPattern, LEDS_OFF } from '../leds/pattern.js';
import { Listeners } from '../listeners.js';
import type { ChargePointHardware, LedPattern, PilotLevel, Timers } from '../types.js';

export const SIM_FAULTS = ['cp-short', 'diode-fault', 'meter-offline', 'contactor-welded', 'contactor-stuck-open', 'temperature-sensor-offline'] as const;
export type SimFault = (typeof SIM_FAULTS)[number];

export type SimVehicle = 'unplugged' | 'connected' | 'requesting';

/** A snapshot of the plant, plain JSON. */
export interface SimState {
  vehicle: SimVehicle;
  ventilation: boolean;
  evMaxCurrentA: number;
  pilotLevel: PilotLevel;
  pwmDuty: number | null;
  /** The current the PWM duty announces; null without PWM or with a duty announcing none. */
  pwmCurrentA: number | null;
  contactorCommanded: boolean;
  /** Whether the contactor is actually closed (differs from the command with a welded or stuck-open fault). */
  contactorClosed: boolean;
  cableLocked: boolean;
  energyWh: number;
  powerW: number;
  currentsA: number[];
  temperatureC: number;
  leds: LedPattern;
  /** Beeps sounded so far (sum of every beep() count). */
  beeps: number;
  lastBeep?: { count: number; ms: number };
  faults: SimFault[];
  /** The self-driven EV: it switches between C and B every this many ms on its own (0: off). */
  alternateMs: number;
  /** The phases the EV draws on now (1 with the phase contactor open, or on a 1-phase supply). */
  activePhases: 1 | 3;
  /** The phase contactor (1-/3-phase switching); absent when the installation has none. */
  phaseContactor?: {
    closed: boolean;
    /** Times it moved. */
    moves: number;
    /** Times it moved while the main contactor was closed (a safety violation: it must stay 0). */
    movesUnderLoad: number;
    /** Times it moved while the PWM offered current. */
    movesOffered: number;
  };
}

/** The controls of the simulation (the controller's /sim routes and the CLI call them). Invalid calls throw an Error. */
export interface SimulatedPlant {
  /** The vehicle is connected, not requesting charge (pilot B). */
  plug(): void;
  /** The vehicle is disconnected (pilot A). */
  unplug(): void;
  /** The EV requests charge (pilot C, or D when it requires ventilation). */
  charge(): void;
  /** The EV stops requesting charge (pilot B). */
  pause(): void;
  setVentilation(required: boolean): void;
  /** The EV on-board charger's current limit, 0..80 A (default 16 A). */
  setEvMaxCurrent(amps: number): void;
  /**
   * The self-driven EV: with the vehicle plugged in, it switches between requesting charge (C) and not (B) every
   * `ms` milliseconds on its own, timed by the plant's timers (0 stops it; unplugging stops it too). Each switch is
   * reported with the time it was due, so a late timer shows as a late reaction, not as a late vehicle.
   */
  alternate(ms: number): void;
  inject(fault: SimFault): void;
  clear(fault: SimFault): void;
  /** Temperature the sensor reads, -55..125 °C (default 25). */
  setTemperature(celsius: number): void;
  state(): SimState;
}

export interface SimulatedHardwareOptions {
  /** The clock, in milliseconds. */
  now: () => number;
  /** 3 (default) or 1. */
  phases?: 1 | 3;
  /** Phase voltage in V (default 230). */
  voltageV?: number;
  /** Timers of the self-driven EV (`alternate`); without them it cannot be used. */
  timers?: Timers;
  /** A phase contactor is installed (1-/3-phase switching on a 3-phase supply); it starts open (one phase). */
  phaseSwitch?: boolean;
}

/** The longest and shortest switching period of the self-driven EV. */
export const ALTERNATE_MS_RANGE = [10, 3_600_000] as const;

const MS_PER_HOUR = 3_600_000;

function checkFault(fault: SimFault): void {
  if (!(SIM_FAULTS as readonly string[]).includes(fault)) throw new Error(`unknown fault ${JSON.stringify(fault)}: one of ${SIM_FAULTS.join(', ')}`);
}

export function createSimulatedHardware(opts: SimulatedHardwareOptions): { hardware: ChargePointHardware; plant: SimulatedPlant } {
  const { now } = opts;
  const phases = opts.phases ?? 3;
  const voltageV = opts.voltageV ?? 230;
  if (phases !== 1 && phases !== 3) throw new RangeError(`phases must be 1 or 3 (got ${phases as number})`);
  if (!Number.isFinite(voltageV) || voltageV <= 0) throw new RangeError(`voltage must be a positive number of volts (got ${voltageV})`);

  let vehicle: SimVehicle = 'unplugged';
  let ventilation = false;
  let evMaxCurrentA = 16;
  let temperatureC = 25;
  const faults = new Set<SimFault>();
  let duty: number | null = null;
  let contactorCommanded = false;
  let lockCommanded = false;
  let leds: LedPattern = LEDS_OFF;
  let beeps = 0;
  let lastBeep: { count: number; ms: number } | undefined;
  const phaseContactor = opts.phaseSwitch ? { closed: false, moves: 0, movesUnderLoad: 0, movesOffered: 0 } : undefined;
  /** L2 and L3 carry current only on a 3-phase supply whose phase contactor (if any) is closed. */
  const activePhases = (): 1 | 3 => (phases === 3 && (phaseContactor?.closed ?? true) ? 3 : 1);

  // Energy register in W·ms: `energyBase` up to `segmentStart`, then the current power since.
  let energyBase = 0;
  let segmentStart = now();

  const levelListeners = new Listeners<[PilotLevel, number]>();
  let alternateMs = 0;
  let alternateTimer: unknown;

  const contactorClosed = () => (faults.has('contactor-welded') ? true : faults.has('contactor-stuck-open') ? false : contactorCommanded);

  const pilotLevel = (): PilotLevel => {
    if (faults.has('cp-short')) return 'e';
    if (faults.has('diode-fault')) return 'f';
    if (vehicle === 'unplugged') return 'a';
    if (vehicle === 'connected') return 'b';
    return ventilation ? 'd' : 'c';
  };

  const currentA = (): number => {
    const level = pilotLevel();
    if (!contactorClosed() || (level !== 'c' && level !== 'd')) return 0;
    const announced = currentForDuty(duty);
    return announced === null ? 0 : Math.min(announced, evMaxCurrentA);
  };

  const powerW = () => currentA() * voltageV * activePhases();
  /** The current on each wired phase: L2 and L3 draw nothing while the phase contactor is open. */
  const currents = (current = currentA()): number[] => Array.from({ length: phases }, (_, i) => (i === 0 || activePhases() === 3 ? current : 0));

  const elapsed = (t: number) => Math.max(0, t - segmentStart);
  const energyWh = (t = now()) => (energyBase + powerW() * elapsed(t)) / MS_PER_HOUR;

  let emittedLevel = pilotLevel();

  /**
   * Applies a state change: closes the constant-power interval, then reports a pilot level change with the time it
   * happened (`at`: when it was due, for the self-driven EV; now otherwise).
   */
  const change = (apply: () => void, at?: number) => {
    const t = now();
    const before = powerW();
    apply();
    if (powerW() !== before) {
      energyBase += before * elapsed(t);
      segmentStart = Math.max(segmentStart, t);
    }
    const level = pilotLevel();
    if (level !== emittedLevel) {
      emittedLevel = level;
      levelListeners.emit(level, at ?? t);
    }
  };

  const stopAlternating = () => {
    if (alternateMs === 0) return;
    opts.timers?.clearTimeout(alternateTimer);
    alternateMs = 0;
  };
  /** The next switch of the self-driven EV, due `alternateMs` after the previous one was due. */
  const scheduleSwitch = (due: number) => {
    const timers = opts.timers!;
    alternateTimer = timers.setTimeout(
      () => {
        change(() => (vehicle = vehicle === 'requesting' ? 'connected' : 'requesting'), due);
        scheduleSwitch(due + alternateMs);
      },
      Math.max(0, due - timers.now()),
    );
  };

  const plant: SimulatedPlant = {
    plug() {
      if (vehicle !== 'unplugged') throw new Error('the vehicle is already plugged in');
      change(() => (vehicle = 'connected'));
    },
    unplug() {
      if (vehicle === 'unplugged') throw new Error('no vehicle is plugged in');
      stopAlternating();
      change(() => (vehicle = 'unplugged'));
    },
    charge() {
      if (vehicle === 'unplugged') throw new Error('no vehicle is plugged in: plug it in before it can request charge');
      if (vehicle === 'requesting') throw new Error('the vehicle already requests charge');
      change(() => (vehicle = 'requesting'));
    },
    pause() {
      if (vehicle === 'unplugged') throw new Error('no vehicle is plugged in');
      if (vehicle === 'connected') throw new Error('the vehicle does not request charge');
      change(() => (vehicle = 'connected'));
    },
    setVentilation(required) {
      if (typeof required !== 'boolean') throw new Error(`ventilation must be true or false (got ${JSON.stringify(required)})`);
      change(() => (ventilation = required));
    },
    setEvMaxCurrent(amps) {
      if (typeof amps !== 'number' || !Number.isFinite(amps) || amps < 0 || amps > 80)
        throw new Error(`EV maximum current must be 0 to 80 A (got ${JSON.stringify(amps)})`);
      change(() => (evMaxCurrentA = amps));
    },
    alternate(ms) {
      const [min, max] = ALTERNATE_MS_RANGE;
      if (typeof ms !== 'number' || !Number.isInteger(ms) || (ms !== 0 && (ms < min || ms > max))) {
        throw new Error(`the EV's switching period must be 0 (off) or ${min} to ${max} ms (got ${JSON.stringify(ms)})`);
      }
      if (ms === 0) return stopAlternating();
      if (!opts.timers) throw new Error('this simulation has no timers for a self-driven EV');
      if (vehicle === 'unplugged') throw new Error('no vehicle is plugged in: plug it in before it can switch between C and B');
      stopAlternating();
      alternateMs = ms;
      scheduleSwitch(opts.timers.now() + ms);
    },
    inject(fault) {
      checkFault(fault);
      change(() => faults.add(fault));
    },
    clear(fault) {
      checkFault(fault);
      change(() => faults.delete(fault));
    },
    setTemperature(celsius) {
      if (typeof celsius !== 'number' || !Number.isFinite(celsius) || celsius < -55 || celsius > 125) {
        throw new Error(`temperature must be -55 to 125 °C, the sensor's range (got ${JSON.stringify(celsius)})`);
      }
      temperatureC = celsius;
    },
    state() {
      const t = now();
      const current = currentA();
      return {
        vehicle,
        ventilation,
        evMaxCurrentA,
        pilotLevel: pilotLevel(),
        pwmDuty: duty,
        pwmCurrentA: currentForDuty(duty),
        contactorCommanded,
        contactorClosed: contactorClosed(),
        cableLocked: lockCommanded,
        energyWh: energyWh(t),
        powerW: powerW(),
        currentsA: currents(current),
        temperatureC,
        leds: { ...leds },
        beeps,
        ...(lastBeep ? { lastBeep: { ...lastBeep } } : {}),
        faults: SIM_FAULTS.filter((f) => faults.has(f)),
        alternateMs,
        activePhases: activePhases(),
        ...(phaseContactor ? { phaseContactor: { ...phaseContactor } } : {}),
      };
    },
  };

  const hardware: ChargePointHardware = {
    pilot: {
      level: pilotLevel,
      onLevel: (listener) => levelListeners.add(listener),
      setDuty(percent) {
        checkDuty(percent);
        change(() => (duty = percent));
      },
      duty: () => duty,
    },
    contactor: {
      set(closed) {
        change(() => (contactorCommanded = closed));
      },
      commanded: () => contactorCommanded,
      feedback: contactorClosed,
    },
    ...(phaseContactor
      ? {
          phaseContactor: {
            set(closed: boolean) {
              if (closed === phaseContactor.closed) return;
              change(() => {
                phaseContactor.closed = closed;
                phaseContactor.moves++;
                if (contactorClosed()) phaseContactor.movesUnderLoad++;
                if (currentForDuty(duty) !== null) phaseContactor.movesOffered++;
              });
            },
            commanded: () => phaseContactor.closed,
            feedback: () => phaseContactor.closed,
          },
        }
      : {}),
    cableLock: {
      set(locked) {
        lockCommanded = locked;
      },
      commanded: () => lockCommanded,
      locked: () => lockCommanded,
    },
    meter: {
      async read() {
        if (faults.has('meter-offline')) throw new Error('meter does not answer (simulated meter-offline fault)');
        return { energyWh: energyWh(), powerW: powerW(), currentsA: currents(), voltagesV: Array<number>(phases).fill(voltageV) };
      },
    },
    buzzer: {
      beep(count, ms = DEFAULT_BEEP_MS) {
        checkBeep(count, ms);
        beeps += count;
        lastBeep = { count, ms };
      },
    },
    leds: {
      show(pattern) {
        checkLedPattern(pattern);
        leds = { color: pattern.color, mode: pattern.mode };
      },
      current: () => ({ ...leds }),
    },
    temperature: {
      async read() {
        if (faults.has('temperature-sensor-offline')) throw new Error('temperature sensor does not answer (simulated temperature-sensor-offline fault)');
        return temperatureC;
      },
    },
    async close() {
      stopAlternating();
      change(() => {
        duty = null;
        contactorCommanded = false;
      });
      leds = LEDS_OFF;
    },
  };

  return { hardware, plant };
}
