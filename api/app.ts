import { METHODS, type IncomingMessage } from 'node:http';
import { Hono, type Context, type Handler } from 'hono';
import type { Session } from '../machines/session.js';
import type { ChargingService } from '../services/charging.js';
import type { Metrics } from '../services/metrics.js';
import type { Simulator } from '../services/simulator.js';
import type { KeyValueStore } from '../services/kv-store.js';
import type { Logger } from '../services/logger.js';
import type { Sessions } from '../services/sessions.js';
import type { Settings } from '../services/settings/index.js';
import type { Dashboard } from '../services/settings/dashboard.js';
import type { Accounts } from '../services/accounts.js';
import type { EventLog } from '../services/events.js';
import type { Inspector } from '../services/inspector.js';
import type { Transactions } from '../services/transactions.js';
import type { Users } from '../services/users.js';
import type { Whitelist } from '../services/whitelist.js';
import { invalid, notFound } from '../services/errors.js';
import { createBodyIntakes, type BodyIntake, type Timers } from './body.js';
import { errorResponse, SessionError } from './errors.js';
import { accountRoutes } from './routes/accounts.js';
import { eventRoutes } from './routes/events.js';
import { loginRoutes } from './routes/login.js';
import { mapRoutes } from './routes/map.js';
import { restartRoutes } from './routes/restart.js';
import { settingsRoutes } from './routes/settings.js';
import { inspectRoutes } from './routes/inspect.js';
import { metricsRoutes } from './routes/metrics.js';
import { simRoutes } from './routes/sim.js';
import { stateRoutes } from './routes/state.js';
import { transactionRoutes } from './routes/transactions.js';
import { userRoutes } from './routes/users.js';
import { whitelistRoutes } from './routes/whitelist.js';
import { webRoutes } from './web/routes.js';
import { documentRoutes } from './routes/docs.js';
import type { DocMethod, DocumentedRoute, JsonSchema, OperationDoc } from './openapi.js';

/** What the API needs of the controller. */
export interface AppDeps {
  sessions: Sessions;
  users: Users;
  whitelist: Whitelist;
  keyValues: KeyValueStore;
  transactions: Transactions;
  charging: ChargingService;
  settings: Settings;
  dashboard: Dashboard;
  /** The simulated world: present with HARDWARE=sim only, and so are the /sim routes. */
  simulator?: Simulator | undefined;
  /** Served at /metrics (loopback, or with METRICS_TOKEN as bearer token). */
  metrics?: Metrics | undefined;
  metricsToken?: string | undefined;
  /** The inspection hub: present, and so is the /inspect page, when the controller feeds one. */
  inspector?: Inspector | undefined;
  /** Login accounts (the /v1/accounts extension). */
  accounts: Accounts;
  /** The event log (the /v1/events extension). */
  events: EventLog;
  /**
   * Restarts the controller in its process (the /v1/restart extension, for settings marked reboot); called once the
   * answer is on its way. Without it the endpoint does not exist.
   */
  restart?: (() => void) | undefined;
  logger: Logger;
  /** Wall-clock time (ms), as events are stamped: the restart limit. */
  now: () => number;
  /** The controller's timers (a manual clock in tests): the time limit of request bodies. */
  clock: Timers;
}

/**
 * Transport bindings. Over HTTP, @hono/node-server passes the Node request (`incoming`); another transport (NFC)
 * passes `clientAddress`, the address a session is bound to.
 */
export type Bindings = { incoming?: IncomingMessage; clientAddress?: string };
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

/** A fetch handler: the app's request → response, as every transport calls it. */
export type Fetch = (request: Request, env?: Bindings) => Response | Promise<Response>;

/**
 * The API application, shared by every transport: HTTP serves it through @hono/node-server, NFC through `fetch`
 * with its own bindings. The session check runs inside each endpoint's one handler (no middleware chain), so a
 * synchronous endpoint answers synchronously.
 */
export function createApp(deps: AppDeps): ApiApp {
  const app = new Hono<AppEnv>();
  const respond = (err: unknown, c: AppContext) =>
    errorResponse(err, c, (e) => deps.logger.error({ err: e, path: c.req.path }, 'unexpected error'));

  const requireSession = (c: AppContext): void => {
    const verdict = deps.sessions.authenticate(c.req.header('authorization'), clientAddress(c));
    if ('code' in verdict) throw new SessionError(verdict.code);
    c.set('session', verdict.session);
  };
  // The session's account must still stand as it did at login (a role, password or removal by the API, the CLI in
  // another process or a restore ends the session): one read of its row per request.
  const requireAccount = async (c: AppContext): Promise<void> => {
    if (!(await deps.sessions.accountHolds(c.var.session))) throw new SessionError(1003);
  };

  const intakes = createBodyIntakes(deps.clock);
  // A request takes effect once its body is in: its session must still be valid then (logout, another login or the
  // timeout may have ended it while the body arrived).
  const sessionIntake: BodyIntake = {
    ...intakes.session,
    received: (c) => {
      requireSession(c);
      return requireAccount(c);
    },
  };
  const withPublicIntake =
    (handler: AppHandler): AppHandler =>
    (c, next) => {
      c.set('intake', intakes.public);
      return handler(c, next);
    };

  const documentedRoutes: DocumentedRoute[] = [];
  const router: Router = {
    resource(path, operations, { public: isPublic = false, tag }) {
      const guarded = (handler: AppHandler): AppHandler =>
        isPublic
          ? withPublicIntake(handler)
          : async (c, next) => {
              requireSession(c);
              await requireAccount(c);
              c.set('intake', sessionIntake);
              return handler(c, next);
            };
      const methods = Object.keys(operations) as Method[];
      for (const method of methods) {
        const { handle, ...doc } = operations[method]!;
        app.on(method, path, guarded(handle));
        documentedRoutes.push({ path, method, doc, public: isPublic, tag });
      }
      // Every other method gets its own handler (not `app.all`): each request then matches exactly one handler,
      // which Hono runs without a middleware chain. HEAD is served by the GET handler.
      const others = METHODS.filter((m) => m !== 'HEAD' && !(methods as string[]).includes(m));
      app.on(
        others,
        path,
        guarded((c) => {
          throw invalid(`Method ${c.req.method} is not supported on ${c.req.path}; use ${methods.join(' or ')}`);
        }),
      );
    },
  };

  loginRoutes(router, deps);
  userRoutes(router, deps);
  whitelistRoutes(router, deps);
  mapRoutes(router, deps);
  transactionRoutes(router, deps);
  stateRoutes(router, deps);
  settingsRoutes(router, deps);
  accountRoutes(router, deps);
  eventRoutes(router, deps);
  if (deps.restart) restartRoutes(router, deps, deps.restart);
  webRoutes(router);
  if (deps.simulator) simRoutes(router, deps.simulator, deps.charging);
  if (deps.metrics) metricsRoutes(router, deps.metrics, deps.metricsToken);
  if (deps.inspector) inspectRoutes(router, deps, deps.inspector);
  const document = documentRoutes(router, documentedRoutes);

  // Unknown paths: 404, but under /v1 only for a valid session (without one, 401 like every other /v1 path).
  app.notFound((c) => {
    try {
      if (c.req.path === '/v1' || c.req.path.startsWith('/v1/')) requireSession(c);
      throw notFound(`No endpoint ${c.req.path}; see /docs (the API document) or docs/api-overview.md`);
    } catch (err) {
      return respond(err, c);
    }
  });
  app.onError(respond);
  // Hono's RegExpRouter compiles its matchers at the first request: done here, while the controller starts, so the
  // first request does not hold the main thread for it (tens of ms on a Raspberry Pi class device).
  app.router.match('GET', '/');
  return Object.assign(app, { document });
}
