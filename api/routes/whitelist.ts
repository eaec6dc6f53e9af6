import type { AppContext, AppDeps, Router } from '../app.js';
import { jsonBody, parseWith } from '../body.js';
import { noContent, operationSucceeded } from '../errors.js';
import { TagId, WhitelistCommand, WhitelistDeleteBody } from '../schemas.js';
import { charCount, invalid } from '../../services/errors.js';

/** Spec 8: the `ids` query of DELETE /whitelist, commas included. */
export const IDS_QUERY_LIMIT = 1000;

function requireLocalType(c: AppContext): void {
  const type = c.req.query('type');
  if (type === undefined) throw invalid('The query parameter type is missing; use type=local');
  if (type !== 'local') throw invalid(`Unknown whitelist type ${JSON.stringify(type)}; the only type is "local"`);
}

/** The ids to delete: from the `ids` query (recommended) or the deprecated body `{type, command: delete, tags}`. */
async function idsToDelete(c: AppContext): Promise<string[]> {
  const ids = c.req.query('ids');
  if (ids !== undefined) {
    requireLocalType(c);
    if (charCount(ids) > IDS_QUERY_LIMIT) throw invalid(`The query parameter ids is longer than ${IDS_QUERY_LIMIT} characters`);
    const list = ids.split(',');
    list.forEach((id) => parseWith(TagId, id, 'The query parameter ids'));
    return list;
  }
  if (!c.req.raw.body) throw invalid('The query parameters type=local and ids (comma-separated tag ids) are missing');
  const body = parseWith(WhitelistDeleteBody, await jsonBody(c), 'The delete body');
  return body.tags.map((t) => t.id);
}

/** Spec 4.5, type `local`, and pairing mode. */
export function whitelistRoutes(router: Router, { whitelist, charging }: AppDeps): void {
  router.resource('/v1/whitelist', {
    GET: async (c) => {
      requireLocalType(c);
      return c.json({ success: true, tags: await whitelist.list() });
    },
    POST: async (c) => {
      const request = parseWith(WhitelistCommand, await jsonBody(c));
      if (request.command === 'clear') await whitelist.clear();
      else if (request.command === 'add') await whitelist.add(request.tags);
      else await whitelist.edit(request.tags);
      return operationSucceeded(c);
    },
    DELETE: async (c) => {
      await whitelist.remove(await idsToDelete(c));
      return noContent(c);
    },
  });
  router.resource('/v1/whitelist/pairing', {
    POST: (c) => {
      charging.enablePairing();
      return operationSucceeded(c);
    },
    GET: async (c) => c.json(await charging.pairedTag()),
  });
}
