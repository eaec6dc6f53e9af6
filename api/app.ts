import type { IncomingMessage } from 'node:http';
import { Hono, type Context, type Handler } from 'hono';
import type { Session } from '../machines/session.js';
import type { ChargePoint } from '../services/charge-point.js';
import type { KeyValueStore } from '../services/kv-store.js';
import type { Logger } from '../services/logger.js';
import type { Sessions } from '../services/sessions.js';
import type { Transactions } from '../services/transactions.js';
import type { Users } from '../services/users.js';
import type { Whitelist } from '../services/whitelist.js';
import { invalid, notFound } from '../services/errors.js';
import { errorResponse, SessionError } from './errors.js';
import { loginRoutes } from './routes/login.js';
import { mapRoutes } from './routes/map.js';
import { stateRoutes } from './routes/state.js';
import { transactionRoutes } from './routes/transactions.js';
import { userRoutes } from './routes/users.js';
import { whitelistRoutes } from './routes/whitelist.js';

/** What the API needs of the controller. */
export interface AppDeps {
  sessions: Sessions;
  users: Users;
  whitelist: Whitelist;
  keyValues: KeyValueStore;
  transactions: Transactions;
  chargePoint: ChargePoint;
  logger: Logger;
}

/**
 * Transport bindings. Over HTTP, @hono/node-server passes the Node request (`incoming`); another transport (NFC)
 * passes `clientAddress`, the address a session is bound to.
 */
export type Bindings = { incoming?: IncomingMessage; clientAddress?: string };
export type AppEnv = { Bindings: Bindings; Variables: { session: Session } };
export type AppContext = Context<AppEnv>;
export type AppHandler = Handler<AppEnv>;

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** The client address a session is bound to: the transport's own, or the TCP peer (IPv4-mapped IPv6 unwrapped). */
export function clientAddress(c: AppContext): string {
  const address = c.env?.clientAddress ?? c.env?.incoming?.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** Registers a path's handlers, and a 400 naming the supported methods for every other method on that path. */
export function resource(app: Hono<AppEnv>, path: string, handlers: Partial<Record<Method, AppHandler>>): void {
  const methods = Object.keys(handlers) as Method[];
  for (const method of methods) app.on(method, path, handlers[method]!);
  app.all(path, (c) => {
    throw invalid(`Method ${c.req.method} is not supported on ${c.req.path}; use ${methods.join(' or ')}`);
  });
}

/**
 * The API application, shared by every transport: HTTP serves it through @hono/node-server, NFC through `app.fetch`
 * with its own bindings.
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    deps.logger.info(
      { method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round((performance.now() - started) * 10) / 10 },
      'request',
    );
  });

  // Every endpoint but GET/POST /v1/login needs a valid session (spec 5 item 1).
  app.use('/v1/*', async (c, next) => {
    if (c.req.path === '/v1/login') return next();
    const verdict = deps.sessions.authenticate(c.req.header('authorization'), clientAddress(c));
    if ('code' in verdict) throw new SessionError(verdict.code);
    c.set('session', verdict.session);
    return next();
  });

  loginRoutes(app, deps);
  userRoutes(app, deps);
  whitelistRoutes(app, deps);
  mapRoutes(app, deps);
  transactionRoutes(app, deps);
  stateRoutes(app, deps);

  app.notFound((c) => {
    throw notFound(`No endpoint ${c.req.path}; see the API overview in the README`);
  });
  app.onError((err, c) => errorResponse(err, c, (e) => deps.logger.error({ err: e, path: c.req.path }, 'unexpected error')));
  return app;
}
