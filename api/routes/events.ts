import * as v from 'valibot';
import type { Role } from '../../db/schema.js';
import { roleAtLeast } from '../../services/accounts.js';
import { forbidden } from '../../services/errors.js';
import { ControllerEventSchema, EVENTS_KEPT } from '../../services/events.js';
import type { AppDeps, Router } from '../types.js';
import { OperationFailed } from '../responses.js';
import { streamJsonPages } from '../stream.js';
import { RangeQuery, rangeOf } from './transactions.js';

/** The lowest role that may read the event log (it names accounts, client addresses and tags). */
export const EVENTS_ROLE: Role = 'operator';

/** An event as answered: its fields (by kind), with its number, time and text. */
const EventView = v.variant(
  'kind',
  ControllerEventSchema.options.map((kind) =>
    v.object({
      id: v.pipe(v.number(), v.integer(), v.description('Increases with every event recorded')),
      at: v.pipe(v.string(), v.isoTimestamp(), v.description('When it happened (UTC)')),
      ...kind.entries,
      message: v.pipe(v.string(), v.description('The event in words (English)')),
    }),
  ) as unknown as (typeof ControllerEventSchema)['options'],
);
const EventList = v.object({ events: v.array(EventView) });

/**
 * Extension outside the spec: GET /v1/events?from=&to=, the event log for people (services/events.ts), for role
 * operator and higher. `from`/`to` are UTC date-times with milliseconds, inclusive, as for /v1/transactions.
 */
export function eventRoutes(router: Router, { events, logger }: AppDeps): void {
  router.resource(
    '/v1/events',
    {
      GET: {
        summary: 'What happened to the charger, oldest first (extension)',
        description:
          'Tags accepted, refused and ignored (and why), transactions started and stopped, faults and warnings raised and cleared, ' +
          'settings changed (which keys, by which account), logins, logouts, refused logins, the NFC link, the backend connection. ' +
          `The newest EventLogSize events (default ${EVENTS_KEPT}) are kept, none older than EventLogMaxAge days where that is set.`,
        role: EVENTS_ROLE,
        query: RangeQuery,
        responses: {
          200: { description: 'The events in the range', body: EventList },
          400: { description: 'A malformed date, or from later than to', body: OperationFailed },
          403: { description: `A role below ${EVENTS_ROLE}`, body: OperationFailed },
        },
        handle: async (c) => {
          if (!roleAtLeast(c.var.session.role, EVENTS_ROLE)) throw forbidden(`The event log needs a session of role ${EVENTS_ROLE} or higher`);
          const body = streamJsonPages(events.pages(rangeOf(c)), { open: '{"events":[', close: ']}' }, (err) =>
            logger.error({ err }, 'listing the events failed'),
          );
          return c.body(body, 200, { 'Content-Type': 'application/json' });
        },
      },
    },
    { tag: 'Events' },
  );
}
