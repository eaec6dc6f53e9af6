import { chmod, mkdir } from 'node:fs/promises';
import { createActor, type InspectionEvent } from 'xstate';

export type InspectionObserver = (event: InspectionEvent) => void;
import { createApp, type Fetch } from '../api/app.js';
import { withRequestLog } from '../api/request-log.js';
import { listen } from '../api/server.js';
import { openDatabase, type Database } from '../db/client.js';
import { createHardware, type SimulatedPlant } from '../drivers/index.js';
import type { Hardware } from '../drivers/types.js';
import { chargeCycleMachine } from '../machines/charge-cycle.js';
import { controllerMachine, type ChargeCycleActor, type NfcLinkActor, type PairingActor, type SessionActor } from '../machines/controller.js';
import { nfcLinkMachine } from '../machines/nfc-link.js';
import { pairingMachine } from '../machines/pairing.js';
import { createAccounts, INITIAL_OPERATOR, type Accounts } from './accounts.js';
import { createChargingService, type ChargingService } from './charging.js';
import { createInspector, type Inspector } from './inspector.js';
import { createDashboard } from './settings/dashboard.js';
import { applySettings, chargeSettingsOf, computedValues, createSettings, type Settings } from './settings/index.js';
import type { Config } from './config.js';
import { createKeyValueStore, type KeyValueStore } from './kv-store.js';
import { createNfcService, type NfcService } from './nfc.js';
import type { Logger } from './logger.js';
import { createSessions, type Sessions } from './sessions.js';
import { createTransactions, type Transactions } from './transactions.js';
import { createUsers, type Users } from './users.js';
import { createWhitelist, type Whitelist } from './whitelist.js';

/** Time for the actors: their timers and the current time in milliseconds (a manual clock in tests). */
export interface Clock {
  setTimeout(fn: (...args: unknown[]) => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
  now(): number;
}

const realClock: Clock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
  now: () => Date.now(),
};

export interface ControllerOptions {
  config: Config;
  logger: Logger;
  /** Drives every actor timer and session time; the real clock by default. */
  clock?: Clock;
  /** Wall-clock time for stored timestamps. */
  now?: () => number;
  /** Devices to use instead of those of `config.hardware` (tests: simulated devices, some deliberately broken). */
  hardware?: { hardware: Hardware; plant?: SimulatedPlant | undefined };
  /** Receives the actor system's inspection events (state charts, model-based tests, transition coverage). */
  inspect?: InspectionObserver;
  /** Shows the generated initial operator password once (the console by default, never the log). */
  showInitialPassword?: (username: string, password: string) => void;
  /** Restarts the controller (POST /v1/restart); without it that endpoint does not exist. */
  restart?: () => void;
}

export interface Controller {
  url: string;
  port: number;
  /** The API as every transport calls it (request log included). */
  fetch: Fetch;
  database: Database;
  accounts: Accounts;
  sessions: Sessions;
  users: Users;
  whitelist: Whitelist;
  keyValues: KeyValueStore;
  transactions: Transactions;
  settings: Settings;
  /** The charge cycle's connection to hardware and database (state, messages, pairing, settings, load limit). */
  charging: ChargingService;
  /** The inspection hub behind the /inspect page. */
  inspector: Inspector;
  /** The NFC transport; `nfc.setRfidMode('rfid' | 'hybrid')` is the RFID Mode setting. */
  nfc: NfcService;
  hardware: Hardware;
  /** The simulated plant (vehicle, meter, faults) with HARDWARE=sim. */
  plant: SimulatedPlant | undefined;
  /** Graceful stop: stop accepting, let in-flight requests finish, stop the actors, close the database. */
  close(): Promise<void>;
}

function printInitialPassword(username: string, password: string): void {
  process.stderr.write(
    `\n  First start: created the login account "${username}" (role operator) with the password\n\n      ${password}\n\n` +
      '  It is shown only this once. Change it with `npm run accounts -- set operator --role operator`.\n\n',
  );
}

/** Starts the controller in a fixed order, announcing "listening" only once everything is up. */
export async function startController(options: ControllerOptions): Promise<Controller> {
  const { config, logger } = options;
  const now = options.now ?? Date.now;

  // The database holds login passwords in plain text (the login protocol needs them): owner-only access.
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const database = await openDatabase(config.databaseUrl);
  if (config.defaultDatabaseFile) await chmod(config.defaultDatabaseFile, 0o600);
  logger.info({ database: config.defaultDatabaseFile ?? 'DATABASE_URL' }, 'database ready');

  const accounts = createAccounts(database, now);
  const initial = await accounts.ensureInitialOperator(config.operatorPassword);
  if (initial) {
    logger.info({ username: INITIAL_OPERATOR, source: initial.generated ? 'generated' : 'OPERATOR_PASSWORD' }, 'created initial operator account');
    if (initial.generated) (options.showInitialPassword ?? printInitialPassword)(INITIAL_OPERATOR, initial.password);
  }

  const services = {
    users: createUsers(database, now),
    whitelist: createWhitelist(database, now),
    keyValues: createKeyValueStore(database),
    transactions: createTransactions(database, now),
  };
  // A transaction a power loss left active is completed with its last checkpoint before anything else runs.
  const interrupted = await services.transactions.closeInterrupted();
  if (interrupted > 0) logger.warn({ count: interrupted }, 'completed transactions interrupted by a power loss (last checkpoint)');

  const settings = await createSettings(database, { now, computed: () => computedValues(now) });

  const clock = options.clock ?? realClock;
  const { hardware, plant } = options.hardware ??
    (await createHardware(config.hardware, {
    now: () => clock.now(),
    phases: settings.get('Phases') === 1 ? 1 : 3,
    pins: config.pins,
    meter: config.meter,
    temperatureSensorPath: config.temperatureSensorPath,
    timers: clock,
    log: logger,
    nfc: config.nfc,
    }));
  const charging = createChargingService({
    hardware,
    transactions: services.transactions,
    whitelist: services.whitelist,
    clock,
    now,
    logger,
    pilotDebounceMs: settings.get('PilotDebounce') as number,
  });
  const nfc = createNfcService({ target: hardware.nfc, setReading: (on) => charging.setReading(on), logger });
  const machine = controllerMachine.provide({
    actors: {
      chargeCycle: chargeCycleMachine.provide({ actions: charging.chargeActions }),
      pairing: pairingMachine.provide({ actions: charging.pairingActions }),
      nfcLink: nfcLinkMachine.provide({ actions: nfc.linkActions }),
    },
  });
  const inspector = createInspector({ now: () => clock.now() });
  const root = createActor(machine, {
    clock,
    input: { chargeCycle: { pilot: hardware.pilot.level(), settings: chargeSettingsOf(settings) } },
    ...(options.inspect ? { inspect: options.inspect } : {}),
  });
  root.subscribe({ error: (err) => logger.error({ err }, 'controller actor failed') });
  root.start();
  inspector.attach(root); // listens to the actor system only while an /inspect page watches
  charging.attach({
    chargeCycle: root.system.get('chargeCycle') as ChargeCycleActor,
    pairing: root.system.get('pairing') as PairingActor,
  });
  const sessions = createSessions(root.system.get('session') as SessionActor, accounts, clock);
  applySettings(settings, { charging, logger, nfc });
  settings.onChange(() => applySettings(settings, { charging, logger, nfc }));

  const dashboard = createDashboard(settings, charging.chargePoint, now);
  const fetch = withRequestLog(createApp({ ...services, accounts, sessions, charging, settings, dashboard, plant, logger, inspector, restart: options.restart }).fetch, logger);
  nfc.attach(root.system.get('nfcLink') as NfcLinkActor, fetch);
  const server = await listen(fetch, config.port, config.host);
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${server.port}`;
  logger.info({ url, hardware: config.hardware }, `listening on ${url}`);

  let closing: Promise<void> | undefined;
  return {
    url,
    port: server.port,
    fetch,
    database,
    accounts,
    sessions,
    ...services,
    charging,
    inspector,
    nfc,
    settings,
    hardware,
    plant,
    close: () =>
      (closing ??= (async () => {
        inspector.close(); // open inspector streams end, so they do not hold the server open
        await server.close();
        await charging.stop();
        nfc.stop();
        root.stop();
        await hardware.close();
        await database.close();
        logger.info('stopped');
      })()),
  };
}
