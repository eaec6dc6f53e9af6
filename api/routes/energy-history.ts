import * as v from 'valibot';
import { HISTORY_BY, MAX_PERIODS, type EnergyHistory, type HistoryBy } from '../../services/energy-history.js';
import { localDay } from '../../services/energy/today.js';
import { parseWith } from '../body.js';
import { EnergyHistoryBody, OperationFailed } from '../responses.js';
import type { Router } from '../types.js';

const Query = v.object({
  by: v.optional(v.picklist(HISTORY_BY, `by must be ${HISTORY_BY.join(' or ')}`)),
  from: v.optional(v.string()),
  to: v.optional(v.string()),
});

/** The default range: the last 31 days by day, the last 12 months by month, ending today in the controller's zone. */
function defaultRange(by: HistoryBy, today: string): { from: string; to: string } {
  const [y, m, d] = today.split('-').map(Number) as [number, number, number];
  if (by === 'day') return { from: new Date(Date.UTC(y, m - 1, d - 30)).toISOString().slice(0, 10), to: today };
  return { from: new Date(Date.UTC(y, m - 12, 1)).toISOString().slice(0, 7), to: today.slice(0, 7) };
}

/**
 * Extension outside the spec: the energy history by local day or month (docs/api-overview.md), any role. Shared by
 * every transport (HTTP and NFC).
 */
export function energyHistoryRoutes(router: Router, deps: { history: EnergyHistory; now: () => number }): void {
  const { history, now } = deps;
  router.resource(
    '/v1/energy/history',
    {
      GET: {
        summary: 'Energy by local day or month: completed transactions (count, Wh) and, with energy management, solar and grid (extension)',
        description:
          `by=day (default; from/to YYYY-MM-DD, at most ${MAX_PERIODS.day}) or by=month (YYYY-MM, at most ${MAX_PERIODS.month}), both inclusive, ` +
          'in the controller’s time zone; without them the last 31 days or 12 months. A transaction counts on the day it started.',
        query: Query,
        responses: {
          200: { description: 'Every period of the range, oldest first, with the totals', body: EnergyHistoryBody },
          400: { description: 'A malformed or impossible date, from later than to, or too long a range', body: OperationFailed },
        },
        handle: async (c) => {
          const q = parseWith(Query, { by: c.req.query('by'), from: c.req.query('from'), to: c.req.query('to') }, 'The query');
          const by = q.by ?? 'day';
          const range = defaultRange(by, localDay(now(), history.timeZone()));
          return c.json(await history.read(by, q.from ?? range.from, q.to ?? range.to));
        },
      },
    },
    { tag: 'Energy' },
  );
}
