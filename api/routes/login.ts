import * as v from 'valibot';
import { clientAddress, type AppDeps, type Router } from '../types.js';
import { readJson, type BodyProblem } from '../body.js';
import { noContent, SessionError } from '../errors.js';
import { Login } from '../schemas.js';
import { LoginSuccess, LoginToken, NotLoggedIn } from '../responses.js';

/** The spec 7.2 code of each body problem; the body's own description where the code's message would not say it. */
const PROBLEM_CODES: Record<BodyProblem, { code: 1007 | 1008 | 1011 | 1012; ownMessage?: true }> = {
  empty: { code: 1012 },
  'too-large': { code: 1011 },
  'invalid-json': { code: 1007 },
  'bad-text': { code: 1008 },
  'too-slow': { code: 1007, ownMessage: true },
  busy: { code: 1011, ownMessage: true },
};

/**
 * Spec 4.1: GET /login (token), POST /login (credentials), POST /logout. Login bodies are two short strings: the
 * limit of every public body (PUBLIC_BODY_LIMIT_BYTES, 4 KiB) applies; larger ones are refused with 1011.
 */
export function loginRoutes(router: Router, { sessions }: AppDeps): void {
  const auth = { tag: 'Authentication' };
  router.resource(
    '/v1/login',
    {
      GET: {
        summary: 'A one-time login token for this client address',
        description: 'Valid for the next login attempt from this address only; asking again invalidates the previous one.',
        responses: { 200: { description: 'The token', body: LoginToken } },
        handle: (c) => c.json({ token: sessions.issueToken(clientAddress(c)) }),
      },
      POST: {
        summary: 'Log in',
        description: 'password = hex SHA-256(plain password + token). One session at a time across all interfaces: a login ends the previous session.',
        body: Login,
        responses: {
          200: { description: 'Logged in', body: LoginSuccess },
          400: { description: 'Malformed login body: 1007 invalid JSON, 1008 bad data, 1011 too much data, 1012 no data', body: NotLoggedIn },
          401: { description: 'Invalid credentials (1001), also for a spent token and while attempts are throttled', body: NotLoggedIn },
        },
        handle: async (c) => {
          const body = await readJson(c);
          if (!body.ok) {
            const { code, ownMessage } = PROBLEM_CODES[body.problem];
            throw new SessionError(code, 400, ownMessage ? body.detail : undefined);
          }
          const credentials = v.safeParse(Login, body.value);
          if (!credentials.success) throw new SessionError(1008, 400);
          const { username, password } = credentials.output;
          const result = await sessions.login(username, password, clientAddress(c));
          if (!result.ok) throw new SessionError(1001);
          return c.json({ logged_in: true, session: { id: result.sessionId } });
        },
      },
    },
    { ...auth, public: true },
  );

  router.resource(
    '/v1/logout',
    {
      POST: {
        summary: 'Log out: the session id is invalid from now on',
        responses: { 204: 'Logged out' },
        handle: (c) => {
          sessions.logout(c.var.session.id);
          return noContent(c);
        },
      },
    },
    auth,
  );
}
