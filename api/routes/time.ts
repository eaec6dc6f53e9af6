import * as v from 'valibot';
import type { ControllerTime } from '../../services/controller-time.js';
import type { Router } from '../types.js';

export const ControllerTimeBody = v.object({
  time: v.pipe(v.string(), v.isoTimestamp(), v.description('The controller’s clock (UTC)')),
  timeZone: v.pipe(v.string(), v.description('The time zone in use (IANA): the TimeZone setting, else the operating system’s')),
  offset: v.pipe(v.string(), v.description('The offset of `time` in that zone, as ISO 8601 writes it (+01:00)')),
  source: v.pipe(v.picklist(['ocpp', 'system']), v.description('ocpp: the OCPP central system set the clock; system: the operating system’s clock')),
  ntpSynchronized: v.pipe(v.nullable(v.boolean()), v.description('The system clock is synchronised by NTP; null: not known here')),
  centralSetAt: v.pipe(v.nullable(v.string()), v.description('When the central system last set the clock (UTC), or null')),
});

/**
 * Extension outside the spec: GET /v1/time (every role), the controller's time, its time zone and where the time
 * comes from (docs/api-overview.md). Read-only; shared by every transport.
 */
export function timeRoutes(router: Router, time: ControllerTime): void {
  router.resource(
    '/v1/time',
    {
      GET: {
        summary: 'The controller’s time, its time zone with the offset, and its source (OCPP central system, NTP) (extension)',
        responses: { 200: { description: 'The controller’s time', body: ControllerTimeBody } },
        handle: async (c) => c.json(await time.read()),
      },
    },
    { tag: 'System' },
  );
}
