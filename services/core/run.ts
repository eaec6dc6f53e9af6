import { writeSync } from 'node:fs';
import { createActor, type AnyActorRef, type InspectionEvent } from 'xstate';
import { createChargePointHardware, type HardwareBackend, type MeterPortOptions } from '../../drivers/charge-point-hardware.js';
import type { RpiPins } from '../../drivers/pins.js';
import type { SimulatedPlant } from '../../drivers/sim/plant.js';
import type { SimulatedSite } from '../../drivers/sim/site.js';
import type { ChargePointHardware } from '../../drivers/types.js';
import { chargeCycleMachine } from '../../machines/charge-cycle.js';
import { coreMachine, type ChargeCycleActor, type PhaseSwitchActor } from '../../machines/core.js';
import { phaseSwitchMachine } from '../../machines/phase-switch.js';
import { createWallClock, realClock, type Clock } from './clock.js';
import { inspectRecord, systemIdOf, type InspectRecord } from './inspection.js';
import { createLoopDelayMonitor } from './loop-delay.js';
import { createChargePoint, type ChargePoint, type CoreLog } from './charge-point.js';
import { createMessageWatch } from './state-view.js';
import { startWatchdog } from './systemd.js';
import { createSilenceWatch } from './liveness.js';
import { CORE_SYSTEM_ID, HEARTBEAT_MS, LIVENESS_TIMEOUT_MS, ToCoreSchema, type CoreStart, type FromCore, type SimCommand, type ToCore } from './protocol.js';
import * as v from 'valibot';

/** The core's actors the inspector shows. */
const CORE_ACTORS: ReadonlySet<string> = new Set(['chargeCycle', 'phaseSwitch']);

/** How the core is set up: plain data, so it can be a worker's `workerData`. */
export interface CoreInit {
  backend: HardwareBackend;
  /** rpi: the GPIO assignment. */
  pins: RpiPins;
  /** The SDM630 on this port (rpi: always; sim: a real meter on a PC, METER_PORT). */
  meter?: MeterPortOptions | undefined;
  temperatureSensorPath?: string | undefined;
  /**
   * Watch the main thread (the core in its own worker thread): when it sends nothing for LIVENESS_TIMEOUT_MS, the
   * core opens the contactor itself, logs why and ends the process.
   */
  watchMain: boolean;
}

/** What the core can be given only when it runs on the main thread (tests): functions and shared objects. */
export interface CoreLocal {
  clock?: Clock;
  now?: () => number;
  /** Raw inspection events of the core's actors (model-based tests measure coverage with them). */
  inspect?: (event: InspectionEvent) => void;
  /** Replaces devices (deliberately broken drivers for the model-based tests). */
  wrapHardware?: (hardware: ChargePointHardware, clock: Clock) => ChargePointHardware;
  /** Start as on real hardware: without the simulated plant (so without /sim). */
  withoutPlant?: boolean;
  /** How the core thread's scheduling priority was set (services/core/worker.ts), logged once started. */
  priority?: { nice: number } | { unchanged: string };
}

/** The port to the main thread: `parentPort` in the worker, one end of a MessageChannel on the main thread. */
export interface CorePort {
  postMessage(message: FromCore): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  close?(): void;
}

/**
 * Runs the charge-point core on `port`: loads the hardware (so a missing Raspberry Pi library stops the controller
 * before it touches its database), then on `start` creates the charge point's devices and its actors and answers
 * every input. Nothing here waits for the main thread: outputs follow the charge cycle at once, effects are sent and
 * forgotten.
 */
export function runCore(port: CorePort, init: CoreInit, local: CoreLocal = {}): void {
  const clock = local.clock ?? realClock;
  const wall = createWallClock(local.now ?? Date.now);
  const now = wall.now;
  const post = (message: FromCore) => port.postMessage(message);
  const log: CoreLog = {
    debug: (fields, msg) => post({ type: 'log', level: 'debug', msg, fields: fields as Record<string, unknown> }),
    info: (fields, msg) => post({ type: 'log', level: 'info', msg, fields: fields as Record<string, unknown> }),
    warn: (fields, msg) => post({ type: 'log', level: 'warn', msg, fields: fields as Record<string, unknown> }),
    error: (fields, msg) => post({ type: 'log', level: 'error', msg, fields: fields as Record<string, unknown> }),
  };

  let running: Running | undefined;
  let starting = false;
  const main = createSilenceWatch(HEARTBEAT_MS, LIVENESS_TIMEOUT_MS);
  let livenessTimer: NodeJS.Timeout | undefined;
  const loop = init.watchMain ? createLoopDelayMonitor() : undefined;

  /** The main thread stopped answering: make the outputs safe, say why on stderr (synchronously), end the process. */
  const mainLost = (silentMs: number) => {
    running?.chargePoint.safeOutputs();
    const line = JSON.stringify({
      level: 60,
      time: Date.now(),
      outputs: running?.chargePoint.outputs(),
      msg: `the main thread sent nothing for ${Math.round(silentMs)} ms: the charge-point core opened the contactor and ends the process`,
    });
    writeSync(2, `${line}\n`);
    process.kill(process.pid, 'SIGKILL');
  };

  let watchdog: { stop(): void } | undefined;
  const startLiveness = () => {
    if (!init.watchMain || livenessTimer) return;
    // systemd's watchdog (the service unit): fed from this thread, so a core that stops is restarted.
    watchdog = startWatchdog({ onError: (error) => log.warn({ error }, 'the systemd watchdog could not be notified') });
    main.reset();
    livenessTimer = setInterval(() => {
      const silent = main.silence();
      if (silent !== undefined) mainLost(silent);
      else post({ type: 'heartbeat', loop: loop!.window() });
    }, HEARTBEAT_MS);
  };

  port.on('message', (raw: unknown) => {
    main.heard();
    const parsed = v.safeParse(ToCoreSchema, raw);
    if (!parsed.success) {
      log.error({ issues: v.flatten(parsed.issues) }, 'the charge-point core refused a malformed message');
      return;
    }
    const message = parsed.output;
    if (message.type === 'heartbeat') return;
    if (message.type === 'clock') return wall.setOffset(message.offsetMs);
    if (message.type === 'start') {
      if (running || starting) return log.error({}, 'the charge-point core is already started');
      starting = true;
      start(message.start).then(
        (r) => {
          running = r;
          if (local.priority)
            log.info(
              local.priority,
              'nice' in local.priority
                ? 'charge-point core thread: raised scheduling priority'
                : 'charge-point core thread: scheduling priority not raised (needs CAP_SYS_NICE or RLIMIT_NICE)',
            );
          startLiveness();
          post({ type: 'ready' });
          r.flush();
        },
        (err: unknown) => post({ type: 'failed', error: errorText(err) }),
      );
      return;
    }
    if (!running) {
      if (message.type === 'stop') {
        post({ type: 'reply', id: message.id, ok: true });
        port.close?.();
        return;
      }
      return log.error({ type: message.type }, 'the charge-point core is not started yet');
    }
    running.handle(message);
  });

  const start = async (s: CoreStart): Promise<Running> => {
    const devices = await createChargePointHardware(init.backend, {
      now: () => clock.now(),
      timers: clock,
      phases: s.phases,
      pins: init.pins,
      meter: init.meter,
      temperatureSensorPath: init.temperatureSensorPath,
      gridMeterAddress: () => running?.chargePoint.grid.meterAddress() ?? 2,
    });
    const hardware = local.wrapHardware ? local.wrapHardware(devices.hardware, clock) : devices.hardware;
    const plant = local.withoutPlant ? undefined : devices.plant;
    return startRunning({
      hardware,
      plant,
      site: local.withoutPlant ? undefined : devices.site,
      clock,
      now,
      log,
      post,
      start: s,
      ...(local.inspect ? { inspect: local.inspect } : {}),
      stopped: () => {
        if (livenessTimer) clearInterval(livenessTimer);
        watchdog?.stop();
        loop?.stop();
        port.close?.();
      },
    });
  };

  // The hardware check comes first (HARDWARE=rpi: pigpio loads and initialises only on a Raspberry Pi).
  checkHardware(init.backend).then(
    () => post({ type: 'hardware' }),
    (err: unknown) => post({ type: 'failed', error: errorText(err) }),
  );
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 10_000);

/** Loads what the backend needs before anything else happens (rpi: pigpio, initialised; sim: nothing). */
async function checkHardware(backend: HardwareBackend): Promise<void> {
  if (backend === 'rpi') {
    const { loadPigpio } = await import('../../drivers/gpio/pigpio.js');
    await loadPigpio();
  }
}

interface Running {
  chargePoint: ChargePoint;
  handle(message: Exclude<ToCore, { type: 'heartbeat' | 'start' }>): void;
  /** Sends the state now if it changed. */
  flush(): void;
}

function startRunning(o: {
  hardware: ChargePointHardware;
  plant: SimulatedPlant | undefined;
  site: SimulatedSite | undefined;
  clock: Clock;
  now: () => number;
  log: CoreLog;
  post: (message: FromCore) => void;
  start: CoreStart;
  inspect?: (event: InspectionEvent) => void;
  stopped: () => void;
}): Running {
  const { hardware, plant, clock, now, log, post } = o;
  let dirty = false;
  let flushScheduled = false;
  let stopping: Promise<void> | undefined;

  const messageEvents = createMessageWatch();
  const flush = () => {
    flushScheduled = false;
    if (!dirty || stopping) return;
    dirty = false;
    const state = chargePoint.state();
    for (const event of messageEvents(state.messages)) post({ type: 'event', at: now(), event });
    post({ type: 'state', state });
  };
  const chargePoint = createChargePoint({
    hardware,
    clock,
    now,
    log,
    pilotDebounceMs: o.start.pilotDebounceMs,
    wiredPhases: o.start.phases,
    ...(o.start.phaseSwitchMode ? { phaseSwitchMode: o.start.phaseSwitchMode } : {}),
    transaction: (event, record, at, reason) => post({ type: 'transaction', event, record, at, ...(reason ? { reason } : {}) }),
    reaction: (reaction, ms) => post({ type: 'reaction', reaction, seconds: ms / 1000 }),
    report: (event) => post({ type: 'event', at: now(), event }),
    gridReading: post,
    changed: () => {
      dirty = true;
      if (flushScheduled) return;
      flushScheduled = true;
      setImmediate(flush);
    },
  });

  const machine = coreMachine.provide({
    actors: {
      chargeCycle: chargeCycleMachine.provide({ actions: chargePoint.chargeActions }),
      phaseSwitch: phaseSwitchMachine.provide({ actions: chargePoint.phases.actions }),
    },
  });
  const root = createActor(machine, {
    clock,
    input: {
      chargeCycle: { pilot: hardware.pilot.level(), settings: o.start.settings },
      // The phase contactor is set before anything runs (the main contactor is open at start).
      phaseSwitch: { phases: chargePoint.phases.initialPhases() },
    },
    ...(o.inspect ? { inspect: o.inspect } : {}),
  });
  // A failed charge cycle (an effect that threw: a device driver) fails the core's root actor: nothing decides any
  // more, so the main thread is told, and ends the process for its supervisor to restart it.
  root.subscribe({
    error: (err) => {
      log.error({ err: String(err) }, 'charge-point core actor failed');
      post({ type: 'failed', error: errorText(err) });
    },
  });
  root.start();
  const cycle = root.system.get('chargeCycle') as ChargeCycleActor;
  chargePoint.attach(cycle);
  chargePoint.phases.attach(root.system.get('phaseSwitch') as PhaseSwitchActor);

  // Inspection records for the /inspect page, batched per turn of the event loop, only while someone watches.
  let inspection: { unsubscribe(): void } | undefined;
  let records: InspectRecord[] = [];
  const sendRecords = () => {
    const batch = records;
    records = [];
    if (batch.length > 0) post({ type: 'inspection', records: batch });
  };
  const observe = (event: InspectionEvent) => {
    const record = inspectRecord(event, systemIdOf(event.actorRef as AnyActorRef, CORE_SYSTEM_ID, CORE_ACTORS));
    if (!record) return;
    if (records.push(record) === 1) setImmediate(sendRecords);
  };

  const simulate = (command: SimCommand) => {
    if (!plant) throw new Error('This charge point runs on real hardware: there is no simulator');
    switch (command.op) {
      case 'state':
        break;
      case 'plug':
        plant.plug();
        break;
      case 'unplug':
        plant.unplug();
        break;
      case 'charge':
        plant.charge();
        break;
      case 'pause':
        plant.pause();
        break;
      case 'ev':
        // The period first: it is the one that can be refused (no vehicle), so a refusal changes nothing.
        if (command.alternateMs !== undefined) plant.alternate(command.alternateMs);
        if (command.maxCurrentA !== undefined) plant.setEvMaxCurrent(command.maxCurrentA);
        if (command.ventilation !== undefined) plant.setVentilation(command.ventilation);
        break;
      case 'fault':
        if (command.active) plant.inject(command.fault);
        else plant.clear(command.fault);
        break;
      case 'temperature':
        plant.setTemperature(command.celsius);
        break;
    }
    return plant.state();
  };

  return {
    chargePoint,
    flush,
    handle(message) {
      if (stopping && message.type !== 'sync' && message.type !== 'stop') return;
      switch (message.type) {
        case 'tag':
          cycle.send(
            message.userId !== undefined
              ? { type: 'TAG', id: message.id, known: message.known, userId: message.userId }
              : { type: 'TAG', id: message.id, known: message.known },
          );
          return;
        case 'authorize':
          cycle.send({ type: 'AUTHORIZE', source: message.source });
          return;
        case 'settings':
          cycle.send({ type: 'SETTINGS', settings: message.settings });
          return;
        case 'loadLimit':
          // Through the phase switch, which holds it at 0 A while it switches.
          chargePoint.phases.setLimit(message.amps);
          return;
        case 'phases':
          chargePoint.phases.configure(message);
          return;
        case 'gridInputs':
          chargePoint.grid.configure(message.config);
          return;
        case 'site':
          o.site?.configure(message.site);
          return;
        case 'stopTransaction':
          cycle.send({ type: 'STOP', reason: message.reason });
          return;
        case 'reading':
          chargePoint.setReading(message.on, message.forMs);
          return;
        case 'beep':
          chargePoint.beep(message.count, message.ms);
          return;
        case 'inspect':
          if (message.on && !inspection) inspection = root.system.inspect(observe);
          if (!message.on) {
            inspection?.unsubscribe();
            inspection = undefined;
          }
          return;
        case 'sim': {
          let plantState;
          try {
            plantState = simulate(message.command);
          } catch (err) {
            post({ type: 'reply', id: message.id, ok: false, error: errorText(err).slice(0, 1000) });
            return;
          }
          flush();
          post({ type: 'reply', id: message.id, ok: true, plant: plantState });
          return;
        }
        case 'sync':
          void chargePoint.settled().then(() => {
            flush();
            sendRecords();
            post({ type: 'reply', id: message.id, ok: true });
          });
          return;
        case 'stop':
          stopping ??= (async () => {
            inspection?.unsubscribe();
            await chargePoint.stop();
            root.stop();
            await hardware.close();
          })();
          void stopping.then(
            () => {
              post({ type: 'reply', id: message.id, ok: true });
              o.stopped();
            },
            (err: unknown) => post({ type: 'reply', id: message.id, ok: false, error: errorText(err).slice(0, 1000) }),
          );
          return;
      }
    },
  };
}
