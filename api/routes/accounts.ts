import type { AccountSummary, PasswordOutcome } from '../../services/accounts.js';
import { ACCOUNT_ADMIN_ROLE, roleAtLeast } from '../../services/accounts.js';
import { forbidden, invalid } from '../../services/errors.js';
import type { AppContext, AppDeps, AppHandler, Router } from '../app.js';
import { jsonBody, parseWith, readJson } from '../body.js';
import { noContent } from '../errors.js';
import { AccountBody, AccountPasswordBody, AccountRoleBody } from '../schemas.js';

const view = (a: AccountSummary) => ({ username: a.username, role: a.role, createdAt: a.createdAt.toISOString() });

/** A generated password is in this answer only: no cache may keep it. */
const withPassword = (c: AppContext, outcome: PasswordOutcome, body: Record<string, unknown>, status: 200 | 201 = 200) => {
  c.header('Cache-Control', 'no-store');
  return c.json(outcome.generatedPassword === undefined ? body : { ...body, password: outcome.generatedPassword }, status);
};

/**
 * Extensions outside the spec (README "Extensions"): who is logged in (`/v1/session`, every role) and the login
 * accounts (`/v1/accounts`, role installer or higher; the rules live in services/accounts.ts, shared with
 * `npm run accounts`). Passwords are never answered, except a generated one, once.
 */
export function accountRoutes(router: Router, { accounts }: AppDeps): void {
  router.resource('/v1/session', {
    GET: (c) => {
      const { username, role } = c.var.session;
      return c.json({ username, role });
    },
  });

  const admin =
    (handler: AppHandler): AppHandler =>
    (c, next) => {
      if (!roleAtLeast(c.var.session.role, ACCOUNT_ADMIN_ROLE)) {
        throw forbidden(`Managing accounts needs a session of role ${ACCOUNT_ADMIN_ROLE} or higher`);
      }
      return handler(c, next);
    };
  const actor = (c: AppContext) => ({ username: c.var.session.username, role: c.var.session.role });
  const target = (c: AppContext) => c.req.param('username') ?? '';

  router.resource('/v1/accounts', {
    GET: admin(async (c) => c.json({ accounts: (await accounts.list()).map(view) })),
    POST: admin(async (c) => {
      const { username, role, password } = parseWith(AccountBody, await jsonBody(c));
      const outcome = await accounts.add(actor(c), username, role, password);
      return withPassword(c, outcome, view(outcome.account), 201);
    }),
  });
  router.resource('/v1/accounts/:username', {
    PATCH: admin(async (c) => {
      const { role } = parseWith(AccountRoleBody, await jsonBody(c));
      return c.json(view(await accounts.setRole(actor(c), target(c), role)));
    }),
    DELETE: admin(async (c) => {
      await accounts.remove(actor(c), target(c));
      return noContent(c);
    }),
  });
  router.resource('/v1/accounts/:username/password', {
    POST: admin(async (c) => {
      const body = await readJson(c);
      if (!body.ok && body.problem !== 'empty') throw invalid(body.detail);
      const { password } = parseWith(AccountPasswordBody, body.ok ? body.value : {});
      return withPassword(c, await accounts.resetPassword(actor(c), target(c), password), { success: true });
    }),
  });
}
