import * as v from 'valibot';
import type { AppContext, AppDeps, Router } from '../types.js';
import { parseWith } from '../body.js';
import { noContent, operationSucceeded } from '../errors.js';
import { CompletedTransactions, CompletedTransactionsSummary, OperationFailed, OperationSucceeded, TransactionCurve } from '../responses.js';
import { UtcDateTime, Uuid } from '../schemas.js';
import { streamJsonPages } from '../stream.js';
import { invalid, notFound } from '../../services/errors.js';
import { CURVE_POINTS, CURVES_KEPT, type CurvePoint } from '../../services/transaction-curve.js';
import type { TimeRange } from '../../services/transactions.js';

/** `from`/`to`: UTC date-times with milliseconds, both inclusive. */
export const RangeQuery = v.object({
  from: v.optional(v.pipe(UtcDateTime, v.description('From this UTC date-time (YYYY-MM-DDThh:mm:ss.sssZ), inclusive'))),
  to: v.optional(v.pipe(UtcDateTime, v.description('Up to this UTC date-time, inclusive'))),
});

/** `from`/`to` (UTC date-time with milliseconds, inclusive); 400 when malformed or reversed. */
export function rangeOf(c: AppContext): TimeRange {
  const { from, to } = parseWith(RangeQuery, { from: c.req.query('from'), to: c.req.query('to') }, 'The query');
  if (from !== undefined && to !== undefined && from > to) throw invalid('The query is invalid: from is later than to');
  const range: TimeRange = {};
  if (from !== undefined) range.from = from;
  if (to !== undefined) range.to = to;
  return range;
}

const failed = (description: string) => ({ description, body: OperationFailed });

/** The curve as the API shows it: ISO times, and the average power between each point and the one before it. */
function curveView(transactionId: string, points: CurvePoint[]) {
  return {
    transactionId,
    points: points.map((p, i) => {
      const before = points[i - 1];
      const powerW = before && p.at > before.at ? Math.round(((p.energyWh - before.energyWh) * 3_600_000) / (p.at - before.at)) : null;
      return { at: new Date(p.at).toISOString(), energyWh: p.energyWh, powerW };
    }),
  };
}

/** Spec 4.3. */
export function transactionRoutes(router: Router, { transactions, charging, logger }: AppDeps): void {
  const tag = { tag: 'Transactions' };
  router.resource(
    '/v1/transactions',
    {
      GET: {
        summary: 'Completed transactions, oldest first',
        description: 'from and to (inclusive) select by the start time.',
        query: RangeQuery,
        responses: {
          200: { description: 'The transactions (CompletedTransactionDetails, spec 2.9)', body: CompletedTransactions },
          400: failed('A malformed date, or from later than to'),
        },
        handle: (c) => {
          const pages = transactions.pagesCompleted(rangeOf(c));
          const body = streamJsonPages(pages, { open: '[', close: ']' }, (err) => logger.error({ err }, 'listing the transactions failed'));
          return c.body(body, 200, { 'Content-Type': 'application/json' });
        },
      },
    },
    tag,
  );
  router.resource(
    '/v1/transactions/summary',
    {
      GET: {
        summary: 'Count, duration and energy of completed transactions',
        query: RangeQuery,
        responses: {
          200: { description: 'The summary (spec 2.10)', body: CompletedTransactionsSummary },
          400: failed('A malformed date, or from later than to'),
        },
        handle: async (c) => c.json(await transactions.summary(rangeOf(c))),
      },
    },
    tag,
  );
  router.resource(
    '/v1/transactions/:transactionId/curve',
    {
      GET: {
        summary: 'The energy curve of a running or completed transaction (extension)',
        description:
          'The energy delivered since the start at the start, every 10 s while it runs, and at its end; older points of a long ' +
          `session are thinned (at most ${CURVE_POINTS}), and curves are kept for the newest ${CURVES_KEPT} transactions (docs/api-overview.md).`,
        params: { transactionId: Uuid },
        responses: {
          200: { description: 'The curve, oldest point first (empty when it is no longer kept)', body: TransactionCurve },
          400: failed('The transactionId in the path is not a UUID'),
          404: failed('No transaction with this id'),
        },
        handle: async (c) => {
          const id = parseWith(Uuid, c.req.param('transactionId'), 'The transactionId in the path');
          const points = await transactions.curve(id);
          if (!points) throw notFound(`No transaction ${id}`);
          return c.json(curveView(id, points));
        },
      },
    },
    tag,
  );
  router.resource(
    '/v1/transactions/active',
    {
      GET: {
        summary: 'Whether a transaction is running',
        responses: { 200: { description: 'A transaction runs', body: OperationSucceeded }, 204: 'None runs' },
        handle: (c) => (charging.chargePoint.state().transaction ? operationSucceeded(c) : noContent(c)),
      },
    },
    tag,
  );
}
