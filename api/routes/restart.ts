import * as v from 'valibot';
import type { Role } from '../../db/schema.js';
import { roleAtLeast } from '../../services/accounts.js';
import { conflict, forbidden, invalid } from '../../services/errors.js';
import { clientAddress, type AppDeps, type Router } from '../types.js';
import { parseWith, readJson } from '../body.js';
import { NO_SNIFF, operationSucceeded } from '../errors.js';
import { OperationFailed, OperationSucceeded } from '../responses.js';

/** The lowest role that may restart the controller. */
export const RESTART_ROLE: Role = 'operator';
/**
 * At most this many restarts within RESTART_WINDOW_MS (counted from the event log, so across restarts and power
 * cycles): a session in a loop cannot keep the charger restarting, and every charge ending.
 */
export const MAX_RESTARTS = 3;
export const RESTART_WINDOW_MS = 15 * 60_000;

const RestartBody = v.strictObject(
  { endTransaction: v.optional(v.boolean('endTransaction must be true or false')) },
  'The body must be nothing or an object {"endTransaction"?: boolean}',
);

/**
 * Extension outside the spec: POST /v1/restart restarts the controller so that settings marked reboot take effect
 * (`reboot_required`). It answers first; the restart (graceful: in-flight requests finish, the database closes)
 * begins once the answer is on its way. Every session ends with it. A running transaction is not ended unless the
 * request confirms it (`{"endTransaction": true}`; else 409), and restarts are limited (429 with Retry-After).
 */
export function restartRoutes(
  router: Router,
  { events, charging, now }: Pick<AppDeps, 'events' | 'charging'> & { now: () => number },
  restart: () => void,
): void {
  router.resource(
    '/v1/restart',
    {
      POST: {
        summary: 'Restart the controller (settings marked reboot take effect); every session ends',
        description:
          `A running transaction ends with the restart (reason Reboot) only when the body says {"endTransaction": true}; without it the answer is 409 ` +
          `and nothing happens. At most ${MAX_RESTARTS} restarts within ${RESTART_WINDOW_MS / 60_000} minutes: another is 429 with Retry-After (seconds).`,
        role: RESTART_ROLE,
        body: { schema: RestartBody, required: false, description: 'No body or {}: restart unless a transaction runs' },
        responses: {
          200: { description: 'The restart begins once this answer is on its way', body: OperationSucceeded },
          400: { description: 'A malformed body', body: OperationFailed },
          403: { description: 'A role below operator', body: OperationFailed },
          409: { description: 'A transaction is running and the body does not confirm ending it', body: OperationFailed },
          429: {
            description: `${MAX_RESTARTS} restarts within ${RESTART_WINDOW_MS / 60_000} minutes already (Retry-After: seconds until one is allowed)`,
            body: OperationFailed,
          },
        },
        handle: async (c) => {
          const { username } = c.var.session;
          if (!roleAtLeast(c.var.session.role, RESTART_ROLE)) throw forbidden(`A restart needs a session of role ${RESTART_ROLE} or higher`);
          const body = await readJson(c);
          if (!body.ok && body.problem !== 'empty') throw invalid(body.detail);
          const { endTransaction = false } = parseWith(RestartBody, body.ok ? body.value : {});
          const at = now();
          const recent = await events.times('restart', at - RESTART_WINDOW_MS + 1); // a restart RESTART_WINDOW_MS old no longer counts
          if (recent.length >= MAX_RESTARTS) {
            const retryAfter = Math.max(1, Math.ceil((recent[recent.length - MAX_RESTARTS]! + RESTART_WINDOW_MS - at) / 1000));
            c.header('Retry-After', String(retryAfter));
            for (const [name, value] of Object.entries(NO_SNIFF)) c.header(name, value);
            return c.json(
              { success: false as const, cause: `At most ${MAX_RESTARTS} restarts within ${RESTART_WINDOW_MS / 60_000} minutes: try again in ${retryAfter} s` },
              429,
            );
          }
          const running = charging.chargePoint.state().transaction !== undefined;
          if (running && !endTransaction) {
            throw conflict(
              'A transaction is running and a restart ends it (reason Reboot): send {"endTransaction": true} to restart anyway, or restart once it has ended',
            );
          }
          events.record({ kind: 'restart', by: username, address: clientAddress(c), transactionEnded: running }, at);
          setImmediate(restart);
          return operationSucceeded(c);
        },
      },
    },
    { tag: 'System' },
  );
}
