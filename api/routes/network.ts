import * as v from 'valibot';
import { roleAtLeast, type Role } from '../../services/accounts.js';
import { forbidden } from '../../services/errors.js';
import type { NetworkStatusService } from '../../services/network-status.js';
import { OperationFailed } from '../responses.js';
import type { Router } from '../types.js';

/** The lowest role that may read the network status (addresses and the backend's errors). */
export const NETWORK_ROLE: Role = 'operator';

const int = v.pipe(v.number(), v.integer());
const Connection = v.object({
  configured: v.boolean(),
  connected: v.boolean(),
  since: v.pipe(v.nullable(int), v.description('Connected since (ms since the epoch), null while not connected')),
  lastError: v.nullable(v.object({ at: int, reason: v.string() })),
});
export const NetworkStatusBody = v.object({
  interfaces: v.array(
    v.object({
      name: v.string(),
      mac: v.nullable(v.string()),
      link: v.pipe(v.nullable(v.string()), v.description('up, down, … as the system says; null where it does not')),
      addresses: v.array(v.object({ family: v.picklist(['IPv4', 'IPv6']), address: v.string(), prefix: v.nullable(int) })),
    }),
  ),
  gateway: v.pipe(v.nullable(v.string()), v.description('The default route’s gateway; null: none or not readable here')),
  dns: v.pipe(v.nullable(v.array(v.string())), v.description('The DNS servers in use; null: not readable here')),
  backend: Connection,
  mqtt: Connection,
});

/**
 * Extension outside the spec: GET /v1/network (role operator), the network as it is now and the OCPP and MQTT
 * connections (docs/network.md). Read-only; shared by every transport (HTTP and NFC).
 */
export function networkRoutes(router: Router, status: NetworkStatusService): void {
  router.resource(
    '/v1/network',
    {
      GET: {
        summary: 'The network now: interfaces (addresses, MAC, link), gateway, DNS, and the OCPP and MQTT connections (extension)',
        role: NETWORK_ROLE,
        responses: {
          200: { description: 'The network status', body: NetworkStatusBody },
          403: { description: `A role below ${NETWORK_ROLE}`, body: OperationFailed },
        },
        handle: async (c) => {
          if (!roleAtLeast(c.var.session.role, NETWORK_ROLE)) throw forbidden(`The network status needs a session of role ${NETWORK_ROLE} or higher`);
          return c.json(await status.read());
        },
      },
    },
    { tag: 'System' },
  );
}
