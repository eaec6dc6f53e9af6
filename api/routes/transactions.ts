import * as v from 'valibot';
import type { AppContext, AppDeps, Router } from '../app.js';
import { parseWith } from '../body.js';
import { noContent, operationSucceeded } from '../errors.js';
import { UtcDateTime } from '../schemas.js';
import { invalid } from '../../services/errors.js';
import type { TimeRange } from '../../services/transactions.js';

const RangeQuery = v.object({ from: v.optional(UtcDateTime), to: v.optional(UtcDateTime) });

/** `from`/`to` (UTC date-time with milliseconds, inclusive, on the start time); 400 when malformed or reversed. */
function rangeOf(c: AppContext): TimeRange {
  const { from, to } = parseWith(RangeQuery, { from: c.req.query('from'), to: c.req.query('to') }, 'The query');
  if (from !== undefined && to !== undefined && from > to) throw invalid('The query is invalid: from is later than to');
  const range: TimeRange = {};
  if (from !== undefined) range.from = from;
  if (to !== undefined) range.to = to;
  return range;
}

/** Spec 4.3. */
export function transactionRoutes(router: Router, { transactions, charging }: AppDeps): void {
  router.resource('/v1/transactions', {
    GET: async (c) => c.json(await transactions.listCompleted(rangeOf(c))),
  });
  router.resource('/v1/transactions/summary', {
    GET: async (c) => c.json(await transactions.summary(rangeOf(c))),
  });
  router.resource('/v1/transactions/active', {
    GET: (c) => (charging.chargePoint.state().transaction ? operationSucceeded(c) : noContent(c)),
  });
}
