import { secretEquals } from '../../machines/secrets.js';
import type { Metrics } from '../../services/metrics.js';
import { clientAddress, type Router } from '../types.js';
import { OperationFailed } from '../responses.js';

/** Loopback addresses: 127.0.0.0/8, ::1 and `localhost` (IPv4-mapped client addresses arrive unwrapped). */
export const isLoopback = (address: string) => address === '::1' || address === 'localhost' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);

/**
 * `GET /metrics` (an extension outside the spec's /v1 API): the Prometheus text format, without a session for
 * loopback clients (a scraper on the controller itself), for others only with `Authorization: Bearer <token>` when
 * METRICS_TOKEN is set; otherwise 403. The figures hold no personal data.
 */
export function metricsRoutes(router: Router, metrics: Metrics, token: string | undefined): void {
  router.resource(
    '/metrics',
    {
      GET: {
        summary: 'Prometheus metrics (loopback clients, or others with the bearer token METRICS_TOKEN)',
        responses: {
          200: { description: 'The Prometheus text format', type: 'text/plain' },
          401: { description: 'A wrong or missing bearer token', body: OperationFailed },
          403: { description: 'Not a loopback client and no METRICS_TOKEN set', body: OperationFailed },
        },
        handle: async (c) => {
          if (!isLoopback(clientAddress(c))) {
            if (token === undefined) {
              return c.json({ success: false, cause: '/metrics answers loopback clients only; set METRICS_TOKEN to allow others with a bearer token' }, 403);
            }
            const given = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1] ?? '';
            if (!secretEquals(token, given)) return c.json({ success: false, cause: 'Send Authorization: Bearer <METRICS_TOKEN>' }, 401);
          }
          return c.body(await metrics.text(), 200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' });
        },
      },
    },
    { public: true, tag: 'System' },
  );
}
