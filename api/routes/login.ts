import * as v from 'valibot';
import { clientAddress, type AppDeps, type Router } from '../app.js';
import { readJson } from '../body.js';
import { noContent, SessionError } from '../errors.js';
import { Login } from '../schemas.js';

/** Login bodies are two short strings; anything larger is refused with 1011. */
export const LOGIN_BODY_LIMIT_BYTES = 4096;

const PROBLEM_CODES = { empty: 1012, 'too-large': 1011, 'invalid-json': 1007, 'bad-text': 1008 } as const;

/** Spec 4.1: GET /login (token), POST /login (credentials), POST /logout. */
export function loginRoutes(router: Router, { sessions }: AppDeps): void {
  router.resource('/v1/login', {
    GET: (c) => c.json({ token: sessions.issueToken() }),
    POST: async (c) => {
      const body = await readJson(c, LOGIN_BODY_LIMIT_BYTES);
      if (!body.ok) throw new SessionError(PROBLEM_CODES[body.problem], 400);
      const credentials = v.safeParse(Login, body.value);
      if (!credentials.success) throw new SessionError(1008, 400);
      const { username, password } = credentials.output;
      const result = await sessions.login(username, password, clientAddress(c));
      if (!result.ok) throw new SessionError(1001);
      return c.json({ logged_in: true, session: { id: result.sessionId } });
    },
  }, { public: true });

  router.resource('/v1/logout', {
    POST: (c) => {
      sessions.logout(c.var.session.id);
      return noContent(c);
    },
  });
}
