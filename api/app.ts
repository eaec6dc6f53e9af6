import { METHODS } from 'node:http';
import { Hono } from 'hono';
import { invalid, notFound } from '../services/errors.js';
import { createBodyIntakes } from './body.js';
import { errorResponse, SessionError } from './errors.js';
import { accountRoutes } from './routes/accounts.js';
import { chargeRoutes } from './routes/charge.js';
import { energyHistoryRoutes } from './routes/energy-history.js';
import { energyInputRoutes } from './routes/energy-inputs.js';
import { diagnosticsRoutes } from './routes/diagnostics.js';
import { eventRoutes } from './routes/events.js';
import { fieldServiceRoutes } from './routes/field-service.js';
import { updateRoutes } from './routes/updates.js';
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
import { networkRoutes } from './routes/network.js';
import { timeRoutes } from './routes/time.js';
import type { DocMethod, DocumentedRoute } from './openapi.js';
import { clientAddress, type ApiApp, type AppContext, type AppDeps, type AppEnv, type AppHandler, type BodyIntake, type Router } from './types.js';

/**
 * The API application, shared by every transport: HTTP serves it through @hono/node-server, NFC through `fetch`
 * with its own bindings. The session check runs inside each endpoint's one handler (no middleware chain), so a
 * synchronous endpoint answers synchronously.
 */
export function createApp(deps: AppDeps): ApiApp {
  const app = new Hono<AppEnv>();
  const respond = (err: unknown, c: AppContext) => errorResponse(err, c, (e) => deps.logger.error({ err: e, path: c.req.path }, 'unexpected error'));

  const requireSession = (c: AppContext): void => {
    const verdict = deps.sessions.authenticate(c.req.header('authorization'), clientAddress(c));
    if ('code' in verdict) throw new SessionError(verdict.code);
    c.set('session', verdict.session);
  };
  // The session's account must still stand as it did at login (a role, password or removal by the API, the CLI in
  // another process or a restore ends the session): its row is read again after a write here, or after 1 s.
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
      // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- Hono's Handler answers HandlerResponse<any>
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
              // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- Hono's Handler answers HandlerResponse<any>
              return handler(c, next);
            };
      const methods = Object.keys(operations) as DocMethod[];
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
  if (deps.energyHistory) energyHistoryRoutes(router, { history: deps.energyHistory, now: deps.now });
  stateRoutes(router, deps);
  settingsRoutes(router, deps);
  accountRoutes(router, deps);
  eventRoutes(router, deps);
  if (deps.chargeControl) chargeRoutes(router, deps, deps.chargeControl);
  if (deps.networkStatus) networkRoutes(router, deps.networkStatus);
  if (deps.controllerTime) timeRoutes(router, deps.controllerTime);
  if (deps.restart) restartRoutes(router, deps, deps.restart);
  if (deps.fieldService) {
    fieldServiceRoutes(router, deps, deps.fieldService);
    diagnosticsRoutes(router, deps.fieldService);
  }
  if (deps.updates) updateRoutes(router, deps.updates);
  if (deps.energyInputs) energyInputRoutes(router, { ...deps, inputs: deps.energyInputs });
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
