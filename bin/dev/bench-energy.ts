import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Controller } from '../start-controller.js';
import { printTable, type Row } from './bench-tools.js';
import { configure, startSimulatedController } from './bench-energy-controller.js';
import { benchSite, siteRows } from './bench-energy-site.js';
import { ManualClock } from './manual-clock.js';

/**
 * `npm run bench -- --energy` (issue 30 item 8, docs/energy.md "Benchmark"): simulated days of energy management,
 * played by the controller itself (the composition `npm start` runs, its core on this thread) on a manual clock that
 * drives every timer, so a day takes about a minute. The simulated site (drivers/sim/site.ts: a house, a PV system
 * and the grid meter between them) gives the surplus; the charger runs in Solar mode with the grid meter as its
 * input, free charging and a phase contactor (one phase below 3 × 6 A of surplus), and the EV asks for energy all day. Figures per day profile (sunny, cloudy):
 * - self-consumption: the PV energy that went into the car over the surplus available above the 6 A minimum
 *   (the surplus counted only while it could have run the car at 6 A on one phase);
 * - grid import while charging in Solar mode (the car's energy the PV did not cover);
 * - contactor operations (closings and openings) in the day and per hour of daylight;
 * - phase switches, and phase changes while the main contactor was closed (must be none).
 * Targets (issue 30): self-consumption ≥ 90 % on the sunny day; at most 6 contactor operations per hour on the
 * cloudy day; no phase change with the contactor closed.
 */

const HOUR_MS = 3_600_000;
/** The simulated daylight: 06:00 to 20:00 (drivers/sim/day-profiles.ts SUNRISE_HOUR, SUNSET_HOUR). */
const START_HOUR = Number(process.env.BENCH_ENERGY_START ?? 6);
const HOURS = Number(process.env.BENCH_ENERGY_HOURS ?? 14);
const STEP_MS = 1_000;
/** 6 A on one phase at 230 V: below this surplus no charge can use it. */
const MINIMUM_W = 6 * 230;
/** The whole run is stopped after this (ms). */
export const ENERGY_WATCHDOG_MS = 30 * 60_000;

interface DayFigures {
  profile: 'sunny' | 'cloudy';
  surplusAboveMinWh: number;
  pvIntoCarWh: number;
  gridImportWh: number;
  carWh: number;
  contactorOps: number;
  phaseSwitches: number;
  phaseChangesClosed: number;
  seconds: number;
  wallMs: number;
}

/** One day for one charger in Solar mode. */
async function playDay(profile: 'sunny' | 'cloudy'): Promise<DayFigures> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cc-bench-energy-'));
  const clock = new ManualClock(Date.UTC(2026, 5, 21, START_HOUR - 2, 0, 0));
  // With a phase contactor (simulated): one phase below 3 × 6 A of surplus, three above (PhaseSwitchMode automatic).
  const controller = await startSimulatedController(clock, dataDir, { GPIO_PHASE_SWITCH: '16' });
  const started = performance.now();
  try {
    const site = controller.energyInputs.site;
    const simulator = controller.simulator;
    if (!site || !simulator) throw new Error('the controller runs without its simulator');
    await configure(controller, [
      { key: 'FreeCharging', value: 1 },
      { key: 'ChargingMode', value: 1 },
      { key: 'GridPowerSource', value: 1 },
    ]);
    site.setDay({ profile, speed: 1, startHour: START_HOUR, seed: 7 });
    await simulator.control({ op: 'plug' });
    await simulator.control({ op: 'charge' });

    const f: DayFigures = {
      profile,
      surplusAboveMinWh: 0,
      pvIntoCarWh: 0,
      gridImportWh: 0,
      carWh: 0,
      contactorOps: 0,
      phaseSwitches: 0,
      phaseChangesClosed: 0,
      seconds: 0,
      wallMs: 0,
    };
    let closed = controller.charging.coreState()?.outputs.contactorClosed ?? false;
    let phasesInUse = phasesOf(controller);
    const toWh = STEP_MS / HOUR_MS;
    for (let t = 0; t < HOURS * HOUR_MS; t += STEP_MS) {
      await clock.advance(STEP_MS);
      await controller.charging.settled();
      const s = site.state();
      const sum = (w: readonly number[]) => w.reduce((a, b) => a + b, 0);
      const surplusW = Math.max(0, sum(s.pvW) - sum(s.houseW));
      const carW = sum(s.evW);
      if (surplusW >= MINIMUM_W) f.surplusAboveMinWh += surplusW * toWh;
      f.pvIntoCarWh += Math.min(carW, surplusW) * toWh;
      f.gridImportWh += Math.max(0, carW - surplusW) * toWh;
      f.carWh += carW * toWh;
      const nowClosed = controller.charging.coreState()?.outputs.contactorClosed ?? false;
      const nowPhases = phasesOf(controller);
      if (nowClosed !== closed) f.contactorOps++;
      if (nowPhases !== phasesInUse) {
        f.phaseSwitches++;
        if (closed && nowClosed) f.phaseChangesClosed++;
      }
      closed = nowClosed;
      phasesInUse = nowPhases;
      f.seconds++;
    }
    f.wallMs = performance.now() - started;
    return f;
  } finally {
    await controller.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The phase count the contactors connect now, as the core reports it. */
function phasesOf(controller: Controller): number {
  return controller.charging.coreState()?.phases.actual ?? 3;
}

const pct = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : 'n/a');

export async function benchEnergy(): Promise<boolean> {
  const days = [await playDay('sunny'), await playDay('cloudy')];
  const rows: Row[] = [];
  let ok = true;
  for (const d of days) {
    const self = d.surplusAboveMinWh > 0 ? d.pvIntoCarWh / d.surplusAboveMinWh : 0;
    const opsPerHour = d.contactorOps / HOURS;
    const selfOk = d.profile !== 'sunny' || self >= 0.9;
    const opsOk = d.profile !== 'cloudy' || opsPerHour <= 6;
    const phaseOk = d.phaseChangesClosed === 0;
    ok &&= selfOk && opsOk && phaseOk;
    const sunny = d.profile === 'sunny';
    rows.push(
      {
        figure: `${d.profile}: PV into the car / surplus above the 6 A minimum`,
        measured: pct(d.pvIntoCarWh, d.surplusAboveMinWh),
        ...(sunny ? { target: '>= 90 %', pass: selfOk } : {}),
      },
      { figure: `${d.profile}: energy into the car / from PV / from the grid`, measured: `${kWh(d.carWh)} / ${kWh(d.pvIntoCarWh)} / ${kWh(d.gridImportWh)}` },
      { figure: `${d.profile}: PV surplus above the 6 A minimum`, measured: kWh(d.surplusAboveMinWh) },
      {
        figure: `${d.profile}: contactor operations (per hour of ${HOURS} h)`,
        measured: `${d.contactorOps} (${opsPerHour.toFixed(2)})`,
        ...(sunny ? {} : { target: '<= 6 / h', pass: opsOk }),
      },
      {
        figure: `${d.profile}: phase switches / with the contactor closed`,
        measured: `${d.phaseSwitches} / ${d.phaseChangesClosed}`,
        target: '0 closed',
        pass: phaseOk,
      },
      { figure: `${d.profile}: simulated ${HOURS} h played in`, measured: `${(d.wallMs / 1000).toFixed(1)} s` },
    );
  }
  rows.push(...siteRows(await benchSite()));
  console.log(
    `bench --energy: one charger in Solar mode, simulated days ${START_HOUR}:00–${START_HOUR + HOURS}:00, step ${STEP_MS} ms, node ${process.version}\n`,
  );
  printTable(rows);
  return ok && rows.every((r) => r.pass !== false);
}

const kWh = (wh: number) => `${(wh / 1000).toFixed(2)} kWh`;
