import type { AppContext, AppDeps, Router } from '../app.js';
import { jsonBody } from '../body.js';
import { noContent, operationSucceeded } from '../errors.js';
import { charCount, invalid } from '../../services/errors.js';
import { KV_MAX_KEY_LENGTH, parsePairs } from '../../services/kv-store.js';

function keyParam(c: AppContext): string {
  const key = c.req.param('key') ?? '';
  if (charCount(key) > KV_MAX_KEY_LENGTH) throw invalid(`The key in the path is longer than ${KV_MAX_KEY_LENGTH} characters`);
  return key;
}

/** Spec 4.6: the generic key/value store. */
export function mapRoutes(router: Router, { keyValues }: AppDeps): void {
  router.resource('/v1/map', {
    GET: async (c) => c.json(await keyValues.all()),
    POST: async (c) => {
      await keyValues.add(parsePairs(await jsonBody(c)));
      return c.body(null, 201);
    },
    PATCH: async (c) => {
      await keyValues.update(parsePairs(await jsonBody(c)));
      return operationSucceeded(c);
    },
  });

  router.resource('/v1/map/:key', {
    GET: async (c) => c.json(await keyValues.get(keyParam(c))),
    DELETE: async (c) => {
      await keyValues.remove(keyParam(c));
      return noContent(c);
    },
  });
}
