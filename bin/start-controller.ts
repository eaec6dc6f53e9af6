import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createActor, type InspectionEvent } from 'xstate';
import { createApp } from '../api/app.js';
import type { Fetch } from '../api/types.js';
import { routeOf, withRequestLog } from '../api/request-log.js';
import { isLoopback } from '../api/routes/metrics.js';
import { listen } from '../api/server.js';
import { openDatabase, type Database } from '../db/client.js';
import { createReaderHardware } from '../drivers/index.js';
import type { ChargePointHardware, ReaderHardware } from '../drivers/types.js';
import { backendLinkMachine } from '../machines/backend-link.js';
import {
  controllerMachine,
  type BackendLinkActor,
  type MqttActor,
  type NfcLinkActor,
  type PairingActor,
  type SessionActor,
  type SiteMembershipActor,
  type SolarActor,
} from '../machines/main-thread.js';
import { mqttMachine } from '../machines/mqtt.js';
import { nfcLinkMachine } from '../machines/nfc-link.js';
import { pairingMachine } from '../machines/pairing.js';
import { solarMachine } from '../machines/solar.js';
import { createAccounts, INITIAL_OPERATOR, type Accounts } from '../services/accounts.js';
import { createChargingService, type ChargingService } from '../services/charging.js';
import { createWallClock, realClock, type Clock } from '../services/core/clock.js';
import type { Config } from '../services/config.js';
import { startCoreLink, type CoreEvent } from '../services/core-link.js';
import { setUpEnergyInputs, type EnergyInputsSetup } from '../services/energy/inputs-setup.js';
import { createEventLog, type EventLog } from '../services/events.js';
import { createBackups } from '../services/field-service/backup.js';
import { createDiagnostics } from '../services/field-service/diagnostics.js';
import { recentLogOf } from '../services/field-service/recent-log.js';
import type { UpdateInstaller } from '../services/field-service/updates.js';
import type { EnergyInputs, SiteLink } from '../services/energy/contracts.js';
import { createEnergyManager, solarActions, solarInputOf, type EnergyManager } from '../services/energy/manager.js';
import { createEnergyHistory } from '../services/energy-history.js';
import { openTodayStore } from '../services/energy/today-store.js';
import { registerEnergyMetrics } from '../services/energy/metrics.js';
import { energySettingsOf, modeValue } from '../services/energy/settings-of.js';
import { chargeSummary, createInspector, localActorSource, type Inspector } from '../services/inspector.js';
import { createKeyValueStore, type KeyValueStore } from '../services/kv-store.js';
import { createLogLevel, LOG_FLUSH_MS, type Logger } from '../services/logger.js';
import { createLoopDelayMonitor } from '../services/core/loop-delay.js';
import { createMetrics, type Metrics } from '../services/metrics.js';
import { createChargeControl, type ChargeControl } from '../services/charge-control.js';
import type { EnergyControl } from '../services/energy/contracts.js';
import { createMqttService, type MqttService } from '../services/mqtt/index.js';
import { createSiteLink, scaledSiteLinkParams, siteMembershipInputOf, type SiteLinkService } from '../services/energy/site-link.js';
import { networkCheck } from '../services/network-check.js';
import { createControllerTime } from '../services/controller-time.js';
import { createConnectionState, createNetworkStatus } from '../services/network-status.js';
import { createNetwork, createNmcli, createSimulatedNetwork, networkSettingsOf } from '../services/network.js';
import { createNfcService, type NfcService } from '../services/nfc/index.js';
import { createBackend, type Backend, type BackendDeps } from '../services/ocpp/backend.js';
import { createSessions, type Sessions } from '../services/sessions.js';
import { createDashboard } from '../services/settings/dashboard.js';
import { applySettings, chargeSettingsOf, phaseSwitchModeOf } from '../services/apply-settings.js';
import { computedValues, createSettings, type Settings } from '../services/settings/index.js';
import { createSimulator, type Simulator } from '../services/simulator.js';
import { watchStorage } from '../services/storage-watch.js';
import { createTransactions, type Transactions } from '../services/transactions.js';
import { createUsers, type Users } from '../services/users.js';
import { createWhitelist, type Whitelist } from '../services/whitelist.js';
import { printInitialPassword, type FirstStart } from './first-start.js';
import { routeCoreEvents } from './core-events.js';

export type InspectionObserver = (event: InspectionEvent) => void;

export interface ControllerOptions {
  config: Config;
  logger: Logger;
  /**
   * Where the charge-point core runs: `worker` (default, production): its own thread, which no request, NFC
   * exchange, log write or database commit can delay; `thread`: on the main thread behind the same messages (tests:
   * a manual clock, raw inspection events and broken devices need it).
   */
  core?: 'worker' | 'thread';
  /** Drives every actor timer and session time; the real clock by default (`core: 'thread'` only otherwise). */
  clock?: Clock;
  /** Wall-clock time for stored timestamps. */
  now?: () => number;
  /**
   * The charge-point core is lost (it died, stopped answering, or its charge cycle failed): by default the process
   * logs why and exits with code 70 for its supervisor to restart it (tests record it instead).
   */
  onCoreLost?: (reason: string) => void;
  /** Replaces charge-point devices (tests: deliberately broken ones); `core: 'thread'` only. */
  chargePointHardware?: (hardware: ChargePointHardware, clock: Clock) => ChargePointHardware;
  /** Replaces reader devices (tests: a deliberately broken NFC face). */
  readerHardware?: (hardware: ReaderHardware, clock: Clock) => ReaderHardware;
  /** Start as on real hardware, without the simulated plant (so without /sim); `core: 'thread'` only. */
  withoutSimulator?: boolean;
  /** Receives both actor systems' inspection events (model-based tests, transition coverage); `core: 'thread'` only. */
  inspect?: InspectionObserver;
  /**
   * Shows the generated initial operator password once (the console by default, never the log), after the start's
   * log lines, with the address to log in at and the data directory.
   */
  showInitialPassword?: (username: string, password: string, where: FirstStart) => void;
  /** The simulated PN532's bytes take their wire time at this baud rate (the NFC benchmark). */
  simWire?: { baudRate: number };
  /** Restarts the controller (POST /v1/restart, OCPP Reset); without it that endpoint does not exist. */
  restart?: () => void;
  /** Installs update files (OCPP UpdateFirmware); only under the launcher (bin/launcher.ts), which starts them. */
  updates?: UpdateInstaller;
  /** Receives every OCPP frame both ways (tests). */
  ocppFrame?: BackendDeps['frame'];
  /** The energy inputs (grid power, grid operator); none wired by default (tests: a scripted grid). */
  energyInputs?: EnergyInputs;
  /** The site link (several chargers on one grid connection); none by default. */
  siteLink?: SiteLink | null;
  /** The operating system's time zone as the controller sees it (tests; default: the process's); the TimeZone setting wins. */
  timeZone?: string;
  /** Energy management's control (tests: a double), shown and steered by the API, MQTT and the web interface. */
  energy?: EnergyControl;
}

export interface Controller {
  url: string;
  port: number;
  /** The API as every transport calls it (request log included). */
  fetch: Fetch;
  /** The API document (OpenAPI 3.1), as GET /openapi.json serves it. */
  document(): Promise<Record<string, unknown>>;
  /** Every route the API has (method and Hono path), those answering "method not supported" included. */
  routes: ReadonlyArray<{ method: string; path: string }>;
  database: Database;
  accounts: Accounts;
  sessions: Sessions;
  users: Users;
  whitelist: Whitelist;
  keyValues: KeyValueStore;
  transactions: Transactions;
  settings: Settings;
  /** The main thread's side of the charge point (state, messages, pairing, settings, load limit). */
  charging: ChargingService;
  /** The inspection hub behind the /inspect page. */
  inspector: Inspector;
  /** The event log for people (GET /v1/events); `events.backend(…)` is where the OCPP client reports its connection. */
  events: EventLog;
  /** The NFC transport; `nfc.setRfidMode('rfid' | 'hybrid')` is the RFID Mode setting. */
  nfc: NfcService;
  /** The OCPP 1.6 charge point (the link to the central system). */
  backend: Backend;
  /** The MQTT link (docs/mqtt.md), beside the API. */
  mqtt: MqttService;
  /** The site link (several chargers on one grid connection, docs/energy.md): the allocator loop's site share. */
  site: SiteLinkService;
  /** Stop, pause and resume of the running charge (MQTT; the web API's to use). */
  chargeControl: ChargeControl;
  /** The allocator loop: every limit composed, its status and mode (docs/energy.md). */
  energy: EnergyManager;
  metrics: Metrics;
  reader: ReaderHardware;
  /** The simulated world (vehicle, meter, faults, cards and a phone) with HARDWARE=sim. */
  simulator: Simulator | undefined;
  /** The energy inputs (grid power, grid-operator limit) and, simulated, the house and PV system. */
  energyInputs: EnergyInputsSetup;
  /** Graceful stop: stop accepting, let in-flight requests finish, stop the core and the actors, close the database. */
  close(): Promise<void>;
}

/**
 * Starts the controller in a fixed order, announcing "listening" only once everything is up: the charge-point
 * core and its hardware first (a machine without the hardware stops here, before any file is written), then the
 * database, the core's charge cycle with the stored settings, the reader, the main thread's actors and the API.
 */
export async function startController(options: ControllerOptions): Promise<Controller> {
  const { config, logger } = options;
  const mode = options.core ?? 'worker';
  if (mode === 'worker' && (options.clock || options.chargePointHardware || options.withoutSimulator || options.inspect)) {
    throw new Error('a manual clock, replaced charge-point devices and raw inspection need core: "thread"');
  }
  // The wall clock: the system's (or the test's), following the OCPP central system's time once it gives one.
  const wall = createWallClock(options.now ?? Date.now);
  const now = wall.now;
  const clock = options.clock ?? realClock;
  const mainLoop = createLoopDelayMonitor();
  const metrics = createMetrics(mainLoop);

  let onCoreEvent: (event: CoreEvent) => void = () => {};
  const core = await startCoreLink({
    mode,
    init: { backend: config.hardware, pins: config.pins, meter: config.meter, temperatureSensorPath: config.temperatureSensorPath },
    local: {
      clock,
      // The base clock: the core applies the same offset itself (the `clock` message).
      now: options.now ?? Date.now,
      ...(options.inspect ? { inspect: options.inspect } : {}),
      ...(options.chargePointHardware ? { wrapHardware: options.chargePointHardware } : {}),
      ...(options.withoutSimulator ? { withoutPlant: true } : {}),
    },
    logger,
    onEvent: (event) => onCoreEvent(event),
    ...(options.onCoreLost ? { onLost: options.onCoreLost } : {}),
  });
  logger.info({ hardware: config.hardware, core: mode }, 'charge-point core started, hardware ready');

  // The database holds login passwords in plain text (the login protocol needs them): owner-only access.
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const database = await openDatabase(config.databaseUrl, { slowCommitMs: config.slowCommitMs });
  if (config.slowCommitMs > 0)
    logger.warn({ slowCommitMs: config.slowCommitMs }, 'fault injection: every database commit is slowed down (FAULT_SLOW_COMMIT_MS)');
  if (config.defaultDatabaseFile) await chmod(config.defaultDatabaseFile, 0o600);
  const { preMigration } = database;
  if (preMigration.file) logger.info({ copy: preMigration.file }, 'database copied as it was before the migrations of this firmware');
  if (preMigration.error) logger.warn({ err: preMigration.error }, 'database not copied before its migration (migrated all the same)');
  logger.info({ database: config.defaultDatabaseFile ?? 'DATABASE_URL' }, 'database ready');

  const events = createEventLog({ database, now, logger });
  const unwatchStorage = watchStorage({ storage: database.storage, events, now });
  const accounts = createAccounts(database, now, { events });
  const initial = await accounts.ensureInitialOperator(config.operatorPassword);
  let generatedPassword: string | undefined;
  if (initial) {
    logger.info({ username: INITIAL_OPERATOR, source: initial.generated ? 'generated' : 'OPERATOR_PASSWORD' }, 'created initial operator account');
    if (initial.generated) generatedPassword = initial.password;
  }

  const services = {
    users: createUsers(database, now),
    whitelist: createWhitelist(database, now),
    keyValues: createKeyValueStore(database),
    transactions: createTransactions(database, now),
  };
  // The network settings go to NetworkManager on the Pi, to a simulated manager that shows them with HARDWARE=sim.
  const network = createNetwork(config.hardware === 'rpi' ? createNmcli() : createSimulatedNetwork(), logger);
  void network.unavailable(); // asked once, now: a settings write checks it
  const settings = await createSettings(database, { now, computed: () => computedValues(now), events, check: networkCheck(network) });
  // The one time zone of schedules, local days, the web interface and its exports: the TimeZone setting, else the system's.
  const controllerTime = createControllerTime({ now, settings, systemZone: options.timeZone });
  const timeZone = controllerTime.timeZone;
  events.retain(() => ({ kept: settings.get('EventLogSize'), maxAgeDays: settings.get('EventLogMaxAge') }));
  const charging = createChargingService({ transactions: services.transactions, whitelist: services.whitelist, now, timers: clock, logger, events });
  const diagnostics = createDiagnostics({ database, settings, metrics, log: recentLogOf(logger), now });
  const connections = { backend: createConnectionState(now), mqtt: createConnectionState(now) };
  // The OCPP backend first: its hooks queue the StopTransaction of a transaction interrupted by a power loss.
  const backend = await createBackend({
    database,
    dataDir: config.dataDir,
    settings,
    charging,
    transactions: services.transactions,
    clock,
    now,
    logger,
    restart: options.restart,
    events,
    diagnostics,
    updates: options.updates,
    connection: connections.backend,
    setTime: (ms) => {
      wall.setOffset(wall.offsetTo(ms));
      core.send({ type: 'clock', offsetMs: wall.offset() });
      controllerTime.setByCentralSystem();
    },
    ...(options.ocppFrame ? { frame: options.ocppFrame } : {}),
  });
  // A transaction a power loss left active is completed with its last checkpoint before anything else runs.
  const interrupted = await services.transactions.closeInterrupted();
  if (interrupted > 0) logger.warn({ count: interrupted }, 'completed transactions interrupted by a power loss (last checkpoint)');
  for (const entry of await services.whitelist.takeRemovedDuplicates()) {
    logger.warn(
      entry,
      `whitelist entry ${JSON.stringify(entry.id)} was removed: its id is that of ${JSON.stringify(entry.keptId)} but for letter case, ` +
        "which now name one tag (the entry added first is kept; the removed one's data is in the table whitelist_removed_duplicates)",
    );
  }

  const inspector = createInspector({
    now: () => clock.now(),
    summary: () => {
      const state = charging.coreState();
      return state && chargeSummary(state);
    },
  });

  // What the core sends, to where it belongs; the inspector's view of the core's actors follows its records.
  const coreEvents = routeCoreEvents({ charging, inspector, diagnostics, metrics, logger, inspect: (on) => core.send({ type: 'inspect', on }) });
  onCoreEvent = coreEvents.handle;

  await core.start({
    settings: chargeSettingsOf(settings),
    phases: settings.get('Phases') === 1 ? 1 : 3,
    phaseSwitchMode: phaseSwitchModeOf(settings),
    pilotDebounceMs: settings.get('PilotDebounce'),
  });

  const readerDevices = await createReaderHardware(config.hardware, {
    timers: clock,
    log: logger,
    port: config.nfcReader ? config.nfc : undefined,
    ...(options.simWire ? { simWire: options.simWire } : {}),
  });
  const reader = options.readerHardware ? options.readerHardware(readerDevices.hardware, clock) : readerDevices.hardware;

  const nfc = createNfcService({ target: reader.nfc, setReading: (on) => charging.setReading(on), logger, events });
  const chargeControl = createChargeControl(charging, { maxCurrentA: () => settings.get('MaxCurrent') });
  const simulated = config.hardware === 'sim' && !options.withoutSimulator;
  const energyInputs = setUpEnergyInputs({ simulated, settings, clock, now, logger, coreMeter: () => charging.coreState()?.meter, core });
  coreEvents.toEnergyInputs((reading) => energyInputs.inputs.fromCore(reading));
  // The site share (several chargers on one grid connection) for the allocator loop; idle while site sharing is off.
  const siteParams = scaledSiteLinkParams(config.siteTimeScale);
  if (config.siteTimeScale !== 1) logger.warn({ scale: config.siteTimeScale }, "the site link's times are scaled (SITE_TIME_SCALE): for tests only");
  const site = createSiteLink({
    settings,
    logger,
    caFile: config.mqttCaFile,
    timers: clock,
    params: siteParams,
    gridPowerW: () => energyInputs.inputs.gridPowerW(),
  });
  settings.onChange(() => site.configure());
  const todayStore = await openTodayStore({ database, now, timeZone, logger });
  const energy = createEnergyManager({
    clock,
    now,
    settings: () => energySettingsOf(settings),
    saveMode: async (mode) => {
      const result = await settings.set({ role: 'operator', username: 'energy' }, [{ key: 'ChargingMode', value: modeValue(mode) }]);
      if (!result.params.every((p) => p.success)) throw new Error('the charging mode could not be saved');
    },
    charging,
    inputs: options.energyInputs ?? energyInputs.inputs,
    site: options.siteLink ?? site,
    logger,
    timeZone,
    todayStore,
  });
  // Energy management as shown and steered (tests may show a double instead).
  const energyControl: EnergyControl = options.energy ?? energy;
  const mqtt = createMqttService({
    settings,
    charging,
    chargeControl,
    backend,
    startedAt: now(),
    logger,
    caFile: config.mqttCaFile,
    inputs: energyInputs.inputs.mqtt,
    energy: energyControl,
    connection: connections.mqtt,
  });
  const machine = controllerMachine.provide({
    actors: {
      pairing: pairingMachine.provide({ actions: charging.pairingActions }),
      nfcLink: nfcLinkMachine.provide({ actions: nfc.linkActions }),
      backendLink: backendLinkMachine.provide({ actions: backend.linkActions }),
      mqtt: mqttMachine.provide({ actions: mqtt.actions }),
      solar: solarMachine.provide({ actions: solarActions(logger) }),
    },
  });
  const root = createActor(machine, {
    clock,
    input: {
      backendLink: { heartbeatMs: settings.get('OcppHeartbeatInterval') * 1000 },
      solar: solarInputOf(energySettingsOf(settings)),
      siteMembership: siteMembershipInputOf(siteParams),
    },
    ...(options.inspect ? { inspect: options.inspect } : {}),
  });
  root.subscribe({ error: (err) => logger.error({ err }, 'controller actor failed') });
  root.start();
  charging.attach({ core, pairing: root.system.get('pairing') as PairingActor });
  backend.attach(root.system.get('backendLink') as BackendLinkActor);
  site.attach(root.system.get('siteMembership') as SiteMembershipActor);
  const stopReading = reader.rfid.onTag((uid, technology) => charging.tagRead(uid, technology));
  // Both actor systems, listened to only while an /inspect page watches.
  inspector.attach(localActorSource(root, 'controller', new Set(inspector.charts.map((c) => c.systemId))), coreEvents.coreSource);
  const sessions = createSessions(root.system.get('session') as SessionActor, accounts, clock, logger, events);
  const logLevel = createLogLevel(logger, { level: config.logLevel, fromEnvironment: config.logLevelFromEnvironment });
  mqtt.attach(root.system.get('mqtt') as MqttActor, root.system.get('backendLink') as BackendLinkActor);
  applySettings(settings, { charging, logLevel, nfc, mqtt });
  settings.onChange(() => applySettings(settings, { charging, logLevel, nfc, mqtt }));

  // The simulated plant runs in the core with HARDWARE=sim, whether the reader (NFC_PORT) or the meter (METER_PORT)
  // is a real device on a PC or not.
  const simulator = simulated ? createSimulator(charging, readerDevices.sim, reader, network, energyInputs.site) : undefined;
  energy.start(root.system.get('solar') as SolarActor);
  settings.onChange(() => energy.step());
  registerEnergyMetrics(metrics.registry, () => energy.status());
  const dashboard = createDashboard(settings, charging.chargePoint, now);
  const app = createApp({
    ...services,
    accounts,
    sessions,
    charging,
    chargeControl,
    energy: energyControl,
    settings,
    dashboard,
    events,
    simulator,
    energyInputs: energyInputs.inputs,
    energyHistory: createEnergyHistory(database, { timeZone }),
    controllerTime,
    networkStatus: createNetworkStatus({
      backend: { read: connections.backend.read, configured: () => settings.get('OcppUrl') !== '' },
      mqtt: { read: connections.mqtt.read, configured: () => settings.get('MqttEnabled') === 1 },
    }),
    logger,
    inspector,
    metrics,
    metricsToken: config.metricsToken,
    clock,
    now,
    restart: options.restart,
    updates: options.updates,
    fieldService: {
      backups: createBackups({ database, stagingFile: join(config.dataDir, 'restore-staging.db'), now }),
      // After a factory reset: the same box as the first start's (the server listens by then: `url` is set).
      showInitialPassword: (username, password) => (options.showInitialPassword ?? printInitialPassword)(username, password, { url, dataDir: config.dataDir }),
      diagnostics,
    },
  });
  const route = routeOf(app.routes);
  const fetch = withRequestLog(app.fetch, logger, (method, path, status) => metrics.request(method, route(path), status));
  nfc.attach(root.system.get('nfcLink') as NfcLinkActor, fetch);
  const server = await listen(fetch, config.port, config.host);
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${server.port}`;
  // The main thread's worst event-loop delay counts from here: what starting held it is logged, not reported there.
  const startupHoldMs = Math.round(mainLoop.restart() * 1000);
  logger.info({ url, hardware: config.hardware, startupHoldMs }, `listening on ${url}`);
  // Marked reboot: applied at every start (NetworkManager keeps them; nothing changes when it has them already).
  const networkApplied = network.apply(networkSettingsOf(settings), now());
  if (simulator && !isLoopback(config.host)) {
    logger.warn({ host: config.host }, "HOST is not a loopback address: the simulator's /sim routes, which need no session, answer other machines too");
  }
  // The password last: after the start's log lines, which the log writes at most LOG_FLUSH_MS later (and at once
  // when the controller closes before that, so it is never lost).
  const showPassword = () => {
    if (generatedPassword === undefined) return;
    (options.showInitialPassword ?? printInitialPassword)(INITIAL_OPERATOR, generatedPassword, { url, dataDir: config.dataDir });
    generatedPassword = undefined;
  };
  const passwordTimer = generatedPassword === undefined ? undefined : setTimeout(showPassword, 2 * LOG_FLUSH_MS);
  passwordTimer?.unref();

  let closing: Promise<void> | undefined;
  return {
    url,
    port: server.port,
    fetch,
    document: app.document,
    routes: app.routes.map(({ method, path }) => ({ method, path })),
    database,
    accounts,
    sessions,
    ...services,
    charging,
    inspector,
    events,
    nfc,
    backend,
    mqtt,
    site,
    chargeControl,
    energy,
    metrics,
    settings,
    reader,
    simulator,
    energyInputs,
    close: () =>
      (closing ??= (async () => {
        clearTimeout(passwordTimer);
        showPassword();
        inspector.close(); // open inspector streams end, so they do not hold the server open
        await server.close();
        await mqtt.stop(); // `offline` on the status topic before the charge point stops
        energyInputs.inputs.close();
        stopReading();
        await backend.close(); // nothing more is sent: what the stop below queues waits for the next start
        energy.stop();
        await charging.stop();
        await todayStore.flush();
        await site.stop(); // after the charge stopped: the peers may use its share at once
        nfc.stop();
        root.stop();
        await reader.close();
        await networkApplied;
        await events.settled();
        unwatchStorage();
        await database.close();
        mainLoop.stop();
        logger.info('stopped');
      })()),
  };
}
