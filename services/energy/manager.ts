import { createActor } from 'xstate';
import type { Timers } from '../../drivers/types.js';
import { MIN_CHARGE_CURRENT_A } from '../../machines/charge-cycle.js';
import type { SolarActor } from '../../machines/main-thread.js';
import { solarMachine, type SolarInput } from '../../machines/solar.js';
import type { ChargingService } from '../charging.js';
import type { Logger } from '../logger.js';
import {
  allocate,
  ampsToWatts,
  describeAllocation,
  ENERGY_DEFAULTS,
  type Allocation,
  type AllocatorInput,
  type PerLine,
  type SolarMode,
  type Timed,
} from './allocator.js';
import type { EnergyControl, EnergyInputs, EnergyStatus, SiteLink } from './contracts.js';
import { phaseStateOf } from './phase-state.js';
import { parseSchedule, scheduleAllows, type Schedule } from './schedule.js';
import { departureUrgent, sessionLimitReached } from './session-goals.js';
import type { EnergySettings } from './settings-of.js';
import { smooth, type Smoothed } from './smoothing.js';
import { addStep, type TodayEnergy } from './today.js';
import type { TodayStore } from './today-store.js';

/**
 * The allocator loop (docs/energy.md): once a second, and at once when a limit, a setting or the vehicle changes, it
 * gathers every input, calls `allocate` and offers the result to the core (`charging.offerCurrent`, the core's
 * `loadLimit`: the one path to it), offers this charger's demand to the site, and reports the status
 * (`EnergyControl`). It drives the solar start/stop actor (machines/solar.ts, in the actor tree), fed the smoothed
 * surplus. No safety deadline depends on it: the core enforces the last current it was given.
 */

/** The charger's rating (A): the highest MaxCurrent (relay, PCB and supply terminals are rated 32 A). */
export const HARDWARE_RATED_A = 32;
/** The loop's period (ms): the allocator's step. */
export const STEP_MS = 1_000;

/** No inputs wired: the allocator's solar and grid-operator sources see nothing. */
export const NO_ENERGY_INPUTS: EnergyInputs = { gridPowerW: () => null, gridOperator: () => null };

export interface EnergyManagerDeps {
  /** The step timer and the solar actor's delays (the manual clock in tests). */
  clock: Timers;
  /** Wall-clock time (UTC ms): the allocator's time, the schedule, the inputs' time stamps. */
  now: () => number;
  settings: () => EnergySettings;
  /** Persists the ChargingMode setting (setMode). */
  saveMode: (mode: SolarMode) => Promise<void>;
  charging: Pick<ChargingService, 'coreState' | 'limits' | 'offerCurrent' | 'setPhaseSwitch' | 'watch' | 'transactionElapsedMs'>;
  inputs: EnergyInputs;
  site: SiteLink | null;
  logger: Logger;
  /** The controller's time zone as it is now (the TimeZone setting; undefined: the process's). */
  timeZone?: () => string;
  /** Keeps today's energy by origin across a restart (today-store.ts); in memory only without it. */
  todayStore?: Pick<TodayStore, 'restored' | 'record'>;
}

export type EnergyManager = EnergyControl & { start(tree?: SolarActor): void; stop(): void; step(): void; allocation(): Allocation | null };

export function createEnergyManager(deps: EnergyManagerDeps): EnergyManager {
  const { clock, now, charging, inputs, site, logger, timeZone } = deps;
  const first = deps.settings();
  // A standalone solar actor until start() is given the one of the main thread's actor tree (machines/main-thread.ts).
  let solar: SolarActor = createActor(solarMachine.provide({ actions: solarActions(logger) }), { clock, input: solarInputOf(first) });
  let ownsSolar = true;

  let timer: unknown;
  let running = false;
  let stepping = false;
  let previous: Allocation | null = null;
  /** The lowest allocation since the last periodic step (the ramp counts from it). */
  let base: Allocation | null = null;
  let offered: number | null = null;
  let wantedPhases: 1 | 3 | null = null;
  let smoothed: Smoothed | null = null;
  let today: TodayEnergy | null = deps.todayStore?.restored ?? null;
  let status: EnergyStatus | undefined;
  let statusJson = '';
  let sessionId: string | null = null;
  let arrivedAt: number | null = null;
  let schedule: { text: string; parsed: Schedule | null } = { text: '', parsed: null };
  let solarParams = JSON.stringify(first.solar);
  const watchers = new Set<(status: EnergyStatus) => void>();

  function scheduleOf(text: string): Schedule | null {
    if (text !== schedule.text) {
      let parsed: Schedule | null = null;
      try {
        parsed = parseSchedule(text);
      } catch (err) {
        // The setting's pattern refuses malformed text; a stored one from elsewhere limits nothing rather than crash.
        logger.warn({ err }, 'energy: the charging schedule cannot be read; it is ignored');
      }
      schedule = { text, parsed };
    }
    return schedule.parsed;
  }

  /** The smoothed surplus (W), updated when the grid input has a new sample; null without a grid input. */
  function surplus(drawW: number): Timed<number> | null {
    const grid = inputs.gridPowerW();
    if (grid === null) return null;
    if (smoothed === null || grid.at !== smoothed.at) {
      const exportW = -(grid.value[0] + grid.value[1] + grid.value[2]);
      smoothed = smooth(smoothed, exportW + drawW, grid.at);
    }
    return { value: smoothed.value, at: smoothed.at };
  }

  /** The ramp counts from the lowest allocation since the last periodic step: it rises once a second, however often it runs. */
  const rampFrom = (): AllocatorInput['previous'] => (base ? { currentA: base.currentA, phases: base.phases } : null);

  function step(): void {
    if (stepping) return;
    stepping = true;
    try {
      run();
    } catch (err) {
      logger.error({ err }, 'energy: the allocator step failed');
    } finally {
      stepping = false;
    }
  }

  function run(): void {
    const at = now();
    const s = deps.settings();
    const core = charging.coreState();
    const tx = core?.transaction ?? null;
    const vehicle = core !== undefined && core.system.connectionState !== 'no_vehicle_connected';
    const drawW = Math.max(0, core?.meter?.powerW ?? tx?.power ?? 0);
    if (vehicle && arrivedAt === null) arrivedAt = at;
    if (!vehicle) arrivedAt = null;
    const txId = tx?.transactionId ?? null;
    if (txId !== null && txId !== sessionId) solar.send({ type: 'SESSION' });
    sessionId = txId;

    const phases = phaseStateOf(s.phases, core?.phases, s.phaseSwitchMode);
    const surplusW = surplus(drawW);
    const surplusFresh = surplusW !== null && at - surplusW.at <= ENERGY_DEFAULTS.surplusMaxAgeMs && surplusW.at <= at;
    const ocpp = charging.limits.get('ocpp');
    const mqtt = charging.limits.get('mqtt');
    const sim = charging.limits.get('sim');
    const mqttA = mqtt === null && sim === null ? null : Math.min(mqtt?.amps ?? Infinity, sim?.amps ?? Infinity);
    const windows = scheduleOf(s.schedule);
    // The session's start as this step's clock sees it: its duration measured monotonically (a wall clock set while it
    // runs neither ends it early by the duration limit nor lets it run on).
    const session = tx ? { consumptionWh: tx.consumption, startedAt: at - (charging.transactionElapsedMs() ?? 0) } : null;

    const input: AllocatorInput = {
      now: at,
      phases,
      hardware: { ratedA: HARDWARE_RATED_A, cableA: null },
      maxCurrentA: s.maxCurrentA,
      supplyA: s.supplyA,
      ocpp: ocpp === null ? null : { amps: ocpp.amps, ...(ocpp.numberPhases ? { numberPhases: ocpp.numberPhases } : {}) },
      mqttA,
      gridOperator: inputs.gridOperator(),
      site: site?.share() ?? null,
      solar: { mode: 'fast', surplusW, run: true },
      schedule: windows === null ? null : { allowed: scheduleAllows(windows, at, timeZone?.()) },
      userLimitA: charging.limits.get('pause')?.amps ?? null,
      sessionLimit: session !== null && sessionLimitReached(session, s.sessionLimits, at) !== null,
      // With no vehicle nothing draws: the ramp starts with the vehicle (its first current after a pause is 6 A).
      previous: vehicle ? rampFrom() : { currentA: Infinity, phases: phases.actual },
    };
    // Departure: when the energy missing needs the time left at the current every other limit allows, charge as Fast.
    const fast = allocate(input, { ...ENERGY_DEFAULTS, rampUpA: s.rampUpA });
    const urgent = session !== null && departureUrgent(s.departure, session, fast.targetA, phases.actual, at, timeZone?.());
    const mode: SolarMode = urgent ? 'fast' : s.mode;

    if (JSON.stringify(s.solar) !== solarParams) {
      solarParams = JSON.stringify(s.solar);
      solar.send({ type: 'PARAMS', params: s.solar });
    }
    if (solar.getSnapshot().context.mode !== mode) solar.send({ type: 'MODE', mode });
    solar.send({ type: 'SURPLUS', watts: surplusFresh ? surplusW.value : null, minimumW: minimumW(phases) });
    const solarRun = solar.getSnapshot().hasTag('run');

    const allocation = mode === 'fast' ? fast : allocate({ ...input, solar: { mode, surplusW, run: solarRun } }, { ...ENERGY_DEFAULTS, rampUpA: s.rampUpA });
    previous = allocation;
    // Without a vehicle nothing draws: a vehicle arriving finds the allocation as it is, not one ramping up.
    if (!vehicle || !base || allocation.currentA < base.currentA || allocation.phases !== base.phases) base = allocation;
    if (offered !== allocation.currentA) {
      offered = allocation.currentA;
      logger.debug({ currentA: allocation.currentA, reason: allocation.reason }, 'energy: offered current');
      charging.offerCurrent(allocation.currentA);
    }
    // The core's phase switch acts on the preferred count with its own hold times (services/core/phase-switching.ts).
    const wanted = phases.switchable ? allocation.preferredPhases : null;
    if (wanted !== wantedPhases) {
      wantedPhases = wanted;
      charging.setPhaseSwitch({ wanted });
    }

    if (site) {
      const own = allocate({ ...input, solar: { mode, surplusW, run: solarRun }, site: null, previous: null }).targetA;
      const currents = core?.meter?.currentsA ?? [];
      site.offer({
        demandA: vehicle ? own : 0,
        phases: allocation.phases,
        drawA: [currents[0] ?? 0, currents[1] ?? 0, currents[2] ?? 0],
        arrivedAt,
      });
    }

    today = addStep(today, at, tx ? drawW : 0, surplusFresh ? surplusW.value : null, timeZone?.());
    deps.todayStore?.record(today, txId);
    const grid = inputs.gridPowerW();
    const operator = inputs.gridOperator();
    const share = site?.share() ?? null;
    const snapshot = solar.getSnapshot();
    const next: EnergyStatus = {
      mode: s.mode,
      currentA: allocation.currentA,
      phases: allocation.phases,
      reason: allocation.reason,
      description: describeAllocation(allocation),
      limits: allocation.limits,
      inputs: {
        gridPowerW: grid?.value ?? null,
        surplusW: surplusFresh ? Math.round(surplusW.value) : null,
        gridOperatorW: operator?.value ?? null,
        siteShareA: (share?.value ?? null) as PerLine | null,
      },
      solar: mode === 'fast' || snapshot.matches('bypassed') ? 'bypassed' : solarRun ? 'charging' : 'paused',
      today: { solarWh: Math.round(today.solarWh), gridWh: Math.round(today.gridWh) },
    };
    const json = JSON.stringify(next);
    if (json !== statusJson) {
      statusJson = json;
      status = next;
      for (const watcher of watchers) {
        try {
          watcher(next);
        } catch (err) {
          logger.error({ err }, 'energy: a watcher of the status failed');
        }
      }
    }
  }

  function tick(): void {
    base = previous;
    step();
    if (running) timer = clock.setTimeout(tick, STEP_MS);
  }

  return {
    /** Starts the loop; `tree` is the solar actor of the actor tree (its parent starts and stops it), else its own runs. */
    start(tree?: SolarActor): void {
      if (running) return;
      running = true;
      if (tree) {
        solar = tree;
        ownsSolar = false;
      } else solar.start();
      charging.limits.onChange(() => running && step());
      // A vehicle arriving or leaving, a transaction starting: the ramp and the session rules change at once.
      let seen = '';
      charging.watch(() => {
        const core = charging.coreState();
        const key = `${core?.system.connectionState}/${core?.transaction?.transactionId ?? ''}`;
        if (running && key !== seen) {
          seen = key;
          step();
        }
      });
      tick();
    },
    stop(): void {
      running = false;
      clock.clearTimeout(timer);
      if (ownsSolar) solar.stop();
    },
    /** A step now (a setting changed); nothing once stopped. */
    step: () => void (running && step()),
    allocation: () => previous,
    status(): EnergyStatus {
      if (!status) step();
      return status!;
    },
    watch(listener) {
      watchers.add(listener);
      return () => watchers.delete(listener);
    },
    async setMode(mode: SolarMode): Promise<void> {
      await deps.saveMode(mode);
      step();
    },
  };
}

/** The solar actor's effects: its starts and stops are logged. */
export const solarActions = (logger: Pick<Logger, 'info'>) => ({
  started: () => logger.info('energy: solar surplus starts charging'),
  stopped: () => logger.info('energy: solar surplus stops charging'),
});

/** The solar actor's input from the settings (the loop sends every later change). */
export function solarInputOf(settings: EnergySettings): SolarInput {
  return { mode: settings.mode, params: settings.solar, minimumW: minimumW(phaseStateOf(settings.phases, undefined, settings.phaseSwitchMode)) };
}

/** The power of 6 A on the fewest phases the charge point can use (W): the solar thresholds are relative to it. */
function minimumW(phases: AllocatorInput['phases']): number {
  return ampsToWatts(MIN_CHARGE_CURRENT_A, phases.switchable || phases.forced === 1 ? 1 : phases.actual);
}
