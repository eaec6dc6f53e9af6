import * as v from 'valibot';
import type { AppContext, AppDeps, Operation, Router } from '../types.js';
import { Dashboard, OperationFailed, Settings, SettingsRefused, SettingsSetResult, SettingValues } from '../responses.js';
import { jsonBody, parseWith, readJson } from '../body.js';
import { charCount, invalid } from '../../services/errors.js';

/** Spec 8: the `params` query of GET /settings, commas included. */
export const PARAMS_QUERY_LIMIT = 4000;
/** The deprecated GET body `{params: [...]}`: its key list obeys the same limit; the body itself at most this. */
const GET_BODY_LIMIT_BYTES = 16 * 1024;

const SettingKey = v.pipe(v.string(), v.minLength(1, 'a key must not be empty'), v.maxLength(255, 'a key is at most 255 characters'));
const KeysBody = v.strictObject({ params: v.pipe(v.array(SettingKey), v.minLength(1, 'params must name at least one key')) });
const SetBody = v.strictObject({
  params: v.pipe(
    v.array(v.strictObject({ key: SettingKey, value: v.unknown() }, 'each item of params must be {key, value}')),
    v.minLength(1, 'params must hold at least one {key, value}'),
    v.maxLength(500, 'params holds at most 500 items'),
  ),
});
const DashboardQuery = v.object({ descriptions: v.optional(v.picklist(['0', '1'], 'descriptions must be 0 or 1'), '1') });

/** The deprecated GET body, or undefined when the request has none. */
async function getBody(c: AppContext): Promise<unknown> {
  const body = await readJson(c, GET_BODY_LIMIT_BYTES);
  if (body.ok) return body.value;
  if (body.problem === 'empty') return undefined;
  throw invalid(body.detail);
}

/** The keys asked for: the `params` query (recommended) or the deprecated body; none → all settings. */
async function requestedKeys(c: AppContext): Promise<string[] | undefined> {
  const query = c.req.query('params');
  if (query !== undefined) {
    if (charCount(query) > PARAMS_QUERY_LIMIT) throw invalid(`The query parameter params is longer than ${PARAMS_QUERY_LIMIT} characters`);
    const keys = query.split(',');
    if (keys.some((k) => k === '')) throw invalid('The query parameter params has an empty key; separate keys with single commas');
    return keys;
  }
  const body = await getBody(c);
  if (body === undefined) return undefined;
  const { params } = parseWith(KeysBody, body, 'The request body');
  if (charCount(params.join(',')) > PARAMS_QUERY_LIMIT) throw invalid(`The keys in params are longer than ${PARAMS_QUERY_LIMIT} characters together`);
  return params;
}

const failed = (description: string) => ({ description, body: OperationFailed });
const KeysQuery = v.object({
  params: v.optional(
    v.pipe(v.string(), v.maxLength(PARAMS_QUERY_LIMIT), v.description('Comma-separated keys (recommended); without it, the deprecated body or all settings')),
  ),
});

/** Spec 4.2 and 4.8. */
export function settingsRoutes(router: Router, { settings, dashboard }: AppDeps): void {
  const set = (summary: string): Operation => ({
    summary,
    description: 'Every pair is checked before anything is written: form, permission, existence, value. If any fails, nothing is written.',
    body: SetBody,
    responses: {
      200: { description: 'Written (spec 2.8)', body: SettingsSetResult },
      400: {
        description: 'Refused: the cause names each failing key; each refused pair carries its own cause (extension)',
        body: v.union([SettingsRefused, OperationFailed]),
      },
    },
    handle: async (c) => {
      const { params } = parseWith(SetBody, await jsonBody(c));
      const { role, username } = c.get('session');
      return c.json(await settings.set({ role, username }, params));
    },
  });
  const tag = { tag: 'Settings' };
  router.resource(
    '/v1/settings',
    {
      GET: {
        summary: 'All settings the role sees, or the values of some',
        query: KeysQuery,
        body: { schema: KeysBody, required: false, description: 'Deprecated: the keys, when the query has no params' },
        responses: {
          200: { description: 'All settings (spec 2.7), or {params: [{key: value}]} for the keys asked', body: v.union([Settings, SettingValues]) },
          400: failed('A malformed query or body, or too long'),
          404: failed('A key that does not exist or that the role does not see'),
        },
        handle: async (c) => {
          const { role, username } = c.get('session');
          const keys = await requestedKeys(c);
          return c.json(keys === undefined ? settings.all(role, username) : settings.some(role, keys));
        },
      },
      POST: set('Change settings'),
      PATCH: set('Change settings (the same as POST)'),
    },
    tag,
  );
  router.resource(
    '/v1/app_settings',
    {
      GET: {
        summary: 'The settings designated for the app',
        responses: { 200: { description: 'Settings (spec 2.7) limited to the app fields', body: Settings } },
        handle: (c) => {
          const { role, username } = c.get('session');
          return c.json(settings.all(role, username, true));
        },
      },
    },
    tag,
  );
  router.resource(
    '/v1/app_dashboard',
    {
      GET: {
        summary: 'The app dashboard',
        query: DashboardQuery,
        responses: { 200: { description: 'Dashboard (spec 2.15)', body: Dashboard }, 400: failed('descriptions is not 0 or 1') },
        handle: (c) => {
          const { descriptions } = parseWith(DashboardQuery, { descriptions: c.req.query('descriptions') }, 'The query');
          const { role, username } = c.get('session');
          return c.json(dashboard(role, username, descriptions === '1'));
        },
      },
    },
    tag,
  );
}
