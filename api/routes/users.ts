import type { AppContext, AppDeps, Router } from '../app.js';
import { jsonBody, parseWith } from '../body.js';
import { noContent, operationSucceeded } from '../errors.js';
import { UserBody, Uuid } from '../schemas.js';

const userIdParam = (c: AppContext) => parseWith(Uuid, c.req.param('userId'), 'The userId in the path');

/** Spec 4.4. */
export function userRoutes(router: Router, { users }: AppDeps): void {
  router.resource('/v1/users', {
    GET: async (c) => c.json({ users: await users.list() }),
    POST: async (c) => {
      const { userName } = parseWith(UserBody, await jsonBody(c));
      return c.json(await users.create(userName), 201);
    },
  });

  router.resource('/v1/users/:userId', {
    GET: async (c) => c.json(await users.get(userIdParam(c))),
    PATCH: async (c) => {
      const userId = userIdParam(c);
      const { userName } = parseWith(UserBody, await jsonBody(c));
      await users.rename(userId, userName);
      return operationSucceeded(c);
    },
    DELETE: async (c) => {
      await users.remove(userIdParam(c));
      return noContent(c);
    },
  });
}
