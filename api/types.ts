import type { Context, Handler, Hono } from 'hono';
import type { Session } from '../machines/session.js';
import type { Accounts } from '../services/accounts.js';
import type { ChargeControl } from '../services/charge-control.js';
import type { ChargingService } from '../services/charging.js';
import type { EnergyControl } from '../services/energy/contracts.js';
import type { EnergyHistory } from '../services/energy-history.js';
import type { NetworkStatusService } from '../services/network-status.js';
import type { ControllerTime } from '../services/controller-time.js';
import type { EnergyInputsService } from '../services/energy/inputs.js';
import type { EventLog } from '../services/events.js';
import type { Backups } from '../services/field-service/backup.js';
import type { Diagnostics } from '../services/field-service/diagnostics.js';
import type { Inspector } from '../services/inspector.js';
import type { KeyValueStore } from '../services/kv-store.js';
import type { Logger } from '../services/logger.js';
import type { Metrics } from '../services/metrics.js';
import type { Sessions } from '../services/sessions.js';
import type { Dashboard } from '../services/settings/dashboard.js';
import type { Settings } from '../services/settings/index.js';
import type { Simulator } from '../services/simulator.js';
import type { Transactions } from '../services/transactions.js';
import type { Bindings } from '../services/fetch.js';
import type { Users } from '../services/users.js';
import type { Whitelist } from '../services/whitelist.js';
import type { BodyBudget } from './body-budget.js';
import type { DocMethod, JsonSchema, OperationDoc } from './openapi.js';
import type { UpdateInstaller } from '../services/field-service/updates.js';

/**
 * The API's vocabulary, shared by app.ts and every route: what the API needs, its Hono environment, an endpoint's
 * shape. A leaf (it imports no route and not app.ts), so routes never import the file that assembles them.
 */

/** Timers of the controller's clock (a manual clock in tests). */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

/** How a request's body is received; chosen by the way its route is registered (api/app.ts). */
export interface BodyIntake {
  /** Largest body, in bytes. */
  limit: number;
  budget: BodyBudget;
  timers: Timers;
  /**
   * Runs once the whole body is in, before anything uses it: throws when the request may no longer take effect
   * (its session ended while the body arrived).
   */
  received?: (c: AppContext) => void | Promise<void>;
}

/** What the API needs of the controller. */
export interface AppDeps {
  sessions: Sessions;
  users: Users;
  whitelist: Whitelist;
  keyValues: KeyValueStore;
  transactions: Transactions;
  charging: ChargingService;
  /** Stop, pause, resume and the current of the running charge: with it, the /v1/charge extension. */
  chargeControl?: ChargeControl | undefined;
  /** Energy management: the `energy` extension of /v1/system_state; absent, the extension is left out. */
  energy?: EnergyControl | undefined;
  settings: Settings;
  dashboard: Dashboard;
  /** The simulated world: present with HARDWARE=sim only, and so are the /sim routes. */
  simulator?: Simulator | undefined;
  /** Served at /metrics (loopback, or with METRICS_TOKEN as bearer token). */
  metrics?: Metrics | undefined;
  metricsToken?: string | undefined;
  /** The inspection hub: present, and so is the /inspect page, when the controller feeds one. */
  inspector?: Inspector | undefined;
  /** The energy history by day and month (the /v1/energy/history extension). */
  energyHistory?: EnergyHistory | undefined;
  /** The controller's time, time zone and time source (the /v1/time extension). */
  controllerTime?: ControllerTime | undefined;
  /** The network now and the OCPP and MQTT connections (the /v1/network extension). */
  networkStatus?: NetworkStatusService | undefined;
  /** The energy inputs: with them, the /v1/energy push endpoints. */
  energyInputs?: EnergyInputsService | undefined;
  /** Login accounts (the /v1/accounts extension). */
  accounts: Accounts;
  /** The event log (the /v1/events extension). */
  events: EventLog;
  /**
   * Restarts the controller in its process (the /v1/restart extension, for settings marked reboot); called once the
   * answer is on its way. Without it the endpoint does not exist.
   */
  restart?: (() => void) | undefined;
  /** Backup, restore, factory reset and diagnostics (the /v1/backup, /v1/factory-reset, /v1/diagnostics extension, docs/field-service.md). */
  fieldService?: FieldServiceDeps | undefined;
  /** Installed versions and the update history (GET /v1/updates); only under the launcher. */
  updates?: UpdateInstaller | undefined;
  logger: Logger;
  /** Wall-clock time (ms), as events are stamped: the restart limit. */
  now: () => number;
  /** The controller's timers (a manual clock in tests): the time limit of request bodies. */
  clock: Timers;
}

/** What the field-service endpoints need; restore and factory reset also need `restart` (else they are not offered). */
export interface FieldServiceDeps {
  backups: Backups;
  /** Shows a factory reset's new operator password once, as the first start does (the console, never the log). */
  showInitialPassword: (username: string, password: string) => void;
  /** The diagnostics bundle (GET /v1/diagnostics). */
  diagnostics: Diagnostics;
}

export type AppEnv = { Bindings: Bindings; Variables: { session: Session; intake: BodyIntake } };
export type AppContext = Context<AppEnv>;
export type AppHandler = Handler<AppEnv>;

type Method = DocMethod;

/** An endpoint: its one handler and its documentation (the API document is generated from these, api/openapi.ts). */
export interface Operation extends OperationDoc {
  handle: AppHandler;
}

export interface ResourceOptions {
  /** No session needed (login, the pages, the simulator's controls): the body intake of requests without one. */
  public?: boolean;
  /** The group the document lists the path under (api/openapi.ts TAGS). */
  tag: string;
}

/** The client address a session is bound to: the transport's own, or the TCP peer (IPv4-mapped IPv6 unwrapped). */
export function clientAddress(c: AppContext): string {
  const address = c.env?.clientAddress ?? c.env?.incoming?.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** Registers the endpoints of one path. */
export interface Router {
  /**
   * Registers a path's handlers, and a 400 naming the supported methods for every other method on that path. Every
   * handler first checks the session (spec 5 item 1), unless the path is `public` (only /v1/login). The body intake
   * follows: with a session, bodies up to 2 MiB whose session is checked again once they are in; public, a few KiB.
   */
  resource(path: string, operations: Partial<Record<Method, Operation>>, opts: ResourceOptions): void;
}

/** The API application and its document (OpenAPI 3.1, as GET /openapi.json serves it). */
export type ApiApp = Hono<AppEnv> & { document(): Promise<JsonSchema> };

export type { Bindings, Fetch } from '../services/fetch.js';
