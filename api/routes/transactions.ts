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

/**
 * The JSON array of the pages, written as they are read: memory stays one page whatever the history, the first
 * bytes leave at once, and the event loop serves others between pages.
 */
function streamJsonArray(pages: AsyncGenerator<unknown[]>, onError: (err: unknown) => void): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let opened = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { value, done } = await pages.next();
          if (done) {
            controller.enqueue(encoder.encode(opened ? ']' : '[]'));
            controller.close();
            return;
          }
          controller.enqueue(encoder.encode((opened ? ',' : '[') + value.map((item) => JSON.stringify(item)).join(',')));
          opened = true;
        } catch (err) {
          onError(err);
          controller.error(err);
        }
      },
      async cancel() {
        await pages.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
}

/** Spec 4.3. */
export function transactionRoutes(router: Router, { transactions, charging, logger }: AppDeps): void {
  router.resource('/v1/transactions', {
    GET: (c) => {
      const pages = transactions.pagesCompleted(rangeOf(c));
      const body = streamJsonArray(pages, (err) => logger.error({ err }, 'listing the transactions failed'));
      return c.body(body, 200, { 'Content-Type': 'application/json' });
    },
  });
  router.resource('/v1/transactions/summary', {
    GET: async (c) => c.json(await transactions.summary(rangeOf(c))),
  });
  router.resource('/v1/transactions/active', {
    GET: (c) => (charging.chargePoint.state().transaction ? operationSucceeded(c) : noContent(c)),
  });
}
