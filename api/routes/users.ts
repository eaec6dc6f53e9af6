import type { AppContext, AppDeps, Router } from '../types.js';
import { jsonBody, parseWith } from '../body.js';
import { noContent, operationSucceeded } from '../errors.js';
import { OperationFailed, OperationSucceeded, User, UserList } from '../responses.js';
import { UserBody, Uuid } from '../schemas.js';

const userIdParam = (c: AppContext) => parseWith(Uuid, c.req.param('userId'), 'The userId in the path');
const notFound = { description: 'No user with this id', body: OperationFailed };
const badRequest = (what: string) => ({ description: what, body: OperationFailed });

/** Spec 4.4. */
export function userRoutes(router: Router, { users }: AppDeps): void {
  const tag = { tag: 'Users' };
  router.resource(
    '/v1/users',
    {
      GET: {
        summary: 'All users',
        responses: { 200: { description: 'The users', body: UserList } },
        handle: async (c) => c.json({ users: await users.list() }),
      },
      POST: {
        summary: 'Create a user',
        body: UserBody,
        responses: { 201: { description: 'Created, with its new userId', body: User }, 400: badRequest('Malformed body or userName') },
        handle: async (c) => {
          const { userName } = parseWith(UserBody, await jsonBody(c));
          return c.json(await users.create(userName), 201);
        },
      },
    },
    tag,
  );

  const params = { userId: Uuid };
  router.resource(
    '/v1/users/:userId',
    {
      GET: {
        summary: 'One user',
        params,
        responses: { 200: { description: 'The user', body: User }, 400: badRequest('userId is not a UUID'), 404: notFound },
        handle: async (c) => c.json(await users.get(userIdParam(c))),
      },
      PATCH: {
        summary: 'Rename a user',
        params,
        body: UserBody,
        responses: { 200: { description: 'Renamed', body: OperationSucceeded }, 400: badRequest('userId is not a UUID, or a malformed body'), 404: notFound },
        handle: async (c) => {
          const userId = userIdParam(c);
          const { userName } = parseWith(UserBody, await jsonBody(c));
          await users.rename(userId, userName);
          return operationSucceeded(c);
        },
      },
      DELETE: {
        summary: 'Delete a user (its whitelist entries stay, without userid)',
        params,
        responses: { 204: 'Deleted', 400: badRequest('userId is not a UUID'), 404: notFound },
        handle: async (c) => {
          await users.remove(userIdParam(c));
          return noContent(c);
        },
      },
    },
    tag,
  );
}
