import type { Role } from '../../db/schema.js';
import { roleAtLeast } from '../../services/accounts.js';
import { forbidden } from '../../services/errors.js';
import type { Router } from '../types.js';
import { operationSucceeded } from '../errors.js';
import { OperationFailed, OperationSucceeded } from '../responses.js';

/** The lowest role that may restart the controller. */
export const RESTART_ROLE: Role = 'operator';

/**
 * Extension outside the spec: POST /v1/restart restarts the controller so that settings marked reboot take effect
 * (`reboot_required`). It answers first; the restart (graceful: in-flight requests finish, a running transaction
 * ends with reason Reboot) begins once the answer is on its way. Every session ends with it.
 */
export function restartRoutes(router: Router, restart: () => void): void {
  router.resource('/v1/restart', {
    POST: {
      summary: 'Restart the controller (settings marked reboot take effect); every session ends',
      role: RESTART_ROLE,
      responses: { 200: { description: 'The restart begins once this answer is on its way', body: OperationSucceeded }, 403: { description: 'A role below operator', body: OperationFailed } },
      handle: (c) => {
        if (!roleAtLeast(c.var.session.role, RESTART_ROLE)) throw forbidden(`A restart needs a session of role ${RESTART_ROLE} or higher`);
        setImmediate(restart);
        return operationSucceeded(c);
      },
    },
  }, { tag: 'System' });
}
