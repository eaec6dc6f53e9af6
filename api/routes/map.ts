import * as v from 'valibot';
import type { AppContext, AppDeps, Router } from '../types.js';
import { KeyValues, OperationFailed, OperationSucceeded } from '../responses.js';
import { jsonBody } from '../body.js';
import { noContent, operationSucceeded } from '../errors.js';
import { charCount, invalid } from '../../services/errors.js';
import { KV_MAX_KEY_LENGTH, parsePairs } from '../../services/kv-store.js';

function keyParam(c: AppContext): string {
  const key = c.req.param('key') ?? '';
  if (charCount(key) > KV_MAX_KEY_LENGTH) throw invalid(`The key in the path is longer than ${KV_MAX_KEY_LENGTH} characters`);
  return key;
}

const failed = (description: string) => ({ description, body: OperationFailed });
const Pairs = v.pipe(v.record(v.string(), v.string()), v.description('Key/value pairs (spec 2.12a): keys 1 to 256 characters, values up to 1000'));
const params = { key: v.pipe(v.string(), v.maxLength(KV_MAX_KEY_LENGTH)) };

/** Spec 4.6: the generic key/value store. */
export function mapRoutes(router: Router, { keyValues }: AppDeps): void {
  const tag = { tag: 'Key/value store' };
  router.resource(
    '/v1/map',
    {
      GET: {
        summary: 'All pairs, by key',
        responses: { 200: { description: 'The pairs', body: KeyValues } },
        handle: async (c) => c.body(await keyValues.allJson(), 200, { 'Content-Type': 'application/json' }),
      },
      POST: {
        summary: 'Add pairs (all or nothing)',
        body: Pairs,
        responses: {
          201: 'Added (no body)',
          400: failed('A key or value too long, a malformed body, or more than 1000 pairs'),
          409: failed('A key exists already'),
        },
        handle: async (c) => {
          await keyValues.add(parsePairs(await jsonBody(c)));
          return c.body(null, 201);
        },
      },
      PATCH: {
        summary: 'Change values (all or nothing)',
        body: Pairs,
        responses: {
          200: { description: 'Changed', body: OperationSucceeded },
          400: failed('A value too long or a malformed body'),
          404: failed('A key that does not exist'),
        },
        handle: async (c) => {
          await keyValues.update(parsePairs(await jsonBody(c)));
          return operationSucceeded(c);
        },
      },
    },
    tag,
  );

  router.resource(
    '/v1/map/:key',
    {
      GET: {
        summary: 'One pair',
        params,
        responses: { 200: { description: 'The pair', body: KeyValues }, 400: failed('The key is longer than 256 characters'), 404: failed('No such key') },
        handle: async (c) => c.json(await keyValues.get(keyParam(c))),
      },
      DELETE: {
        summary: 'Remove a pair',
        params,
        responses: { 204: 'Removed', 400: failed('The key is longer than 256 characters'), 404: failed('No such key') },
        handle: async (c) => {
          await keyValues.remove(keyParam(c));
          return noContent(c);
        },
      },
    },
    tag,
  );
}
