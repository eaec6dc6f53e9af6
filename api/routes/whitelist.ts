import type { AppContext, AppDeps, Router } from '../types.js';
import { hasBody, jsonBody, parseWith } from '../body.js';
import { noContent, operationSucceeded } from '../errors.js';
import * as v from 'valibot';
import { OperationFailed, OperationSucceeded, Whitelist, WhitelistEntry } from '../responses.js';
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
  if (!hasBody(c)) throw invalid('The query parameters type=local and ids (comma-separated tag ids) are missing');
  const body = parseWith(WhitelistDeleteBody, await jsonBody(c), 'The delete body');
  return body.tags.map((t) => t.id);
}

const failed = (description: string) => ({ description, body: OperationFailed });
const TypeQuery = v.object({ type: v.pipe(v.literal('local'), v.description('The only whitelist type')) });
const DeleteQuery = v.object({
  type: v.optional(v.literal('local')),
  ids: v.optional(
    v.pipe(v.string(), v.maxLength(IDS_QUERY_LIMIT), v.description('Comma-separated tag ids (with type=local); without it, the deprecated body')),
  ),
});

/** Spec 4.5, type `local`, and pairing mode. */
export function whitelistRoutes(router: Router, { whitelist, charging }: AppDeps): void {
  const tag = { tag: 'Whitelist' };
  router.resource(
    '/v1/whitelist',
    {
      GET: {
        summary: 'The local whitelist',
        query: TypeQuery,
        responses: { 200: { description: 'Its entries, in the order they were added', body: Whitelist }, 400: failed('type missing or not local') },
        handle: async (c) => {
          requireLocalType(c);
          return c.json({ success: true, tags: await whitelist.list() });
        },
      },
      POST: {
        summary: 'Add, edit or clear entries',
        body: WhitelistCommand,
        responses: {
          200: { description: 'Done', body: OperationSucceeded },
          400: failed('Malformed command, an id twice, an id already there (add), more than 1000 entries'),
          404: failed('edit: an id that is not in the whitelist, or a userid naming no user'),
        },
        handle: async (c) => {
          const request = parseWith(WhitelistCommand, await jsonBody(c));
          if (request.command === 'clear') await whitelist.clear();
          else if (request.command === 'add') await whitelist.add(request.tags);
          else await whitelist.edit(request.tags);
          return operationSucceeded(c);
        },
      },
      DELETE: {
        summary: 'Remove entries',
        description: 'By the query ids (recommended), or by the deprecated body {type, command: delete, tags: [{id}]}.',
        query: DeleteQuery,
        body: { schema: WhitelistDeleteBody, required: false, description: 'Deprecated: used when the query has no ids' },
        responses: {
          204: 'Removed',
          400: failed('Missing parameter, query or body too large, an id twice'),
          404: failed('An id that is not in the whitelist'),
        },
        handle: async (c) => {
          await whitelist.remove(await idsToDelete(c));
          return noContent(c);
        },
      },
    },
    tag,
  );
  router.resource(
    '/v1/whitelist/pairing',
    {
      POST: {
        summary: 'Pairing mode on for 60 s (only while the charge point is idle)',
        responses: {
          200: { description: 'Pairing mode is on', body: OperationSucceeded },
          500: failed('The charge point is not idle (the reason is the cause)'),
        },
        handle: (c) => {
          charging.enablePairing();
          return operationSucceeded(c);
        },
      },
      GET: {
        summary: 'The tag read in pairing mode, with its whitelist data when known',
        responses: { 200: { description: 'The tag', body: WhitelistEntry }, 500: failed('No tag has been read in pairing mode') },
        handle: async (c) => c.json(await charging.pairedTag()),
      },
    },
    tag,
  );
}
