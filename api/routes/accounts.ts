import type { AccountSummary, PasswordOutcome } from '../../services/accounts.js';
import { ACCOUNT_ADMIN_ROLE, roleAtLeast } from '../../services/accounts.js';
import { forbidden, invalid, OperationError } from '../../services/errors.js';
import { clientAddress, type AppContext, type AppDeps, type AppHandler, type Router } from '../types.js';
import { jsonBody, parseWith, readJson } from '../body.js';
import { noContent } from '../errors.js';
import { Account, AccountList, AccountWithPassword, OperationFailed, PasswordReset, SessionInfo } from '../responses.js';
import { AccountBody, AccountPasswordBody, AccountRoleBody } from '../schemas.js';

const view = (a: AccountSummary) => ({ username: a.username, role: a.role, createdAt: a.createdAt.toISOString() });

/** A generated password is in this answer only: no cache may keep it. */
const withPassword = (c: AppContext, outcome: PasswordOutcome, body: Record<string, unknown>, status: 200 | 201 = 200) => {
  c.header('Cache-Control', 'no-store');
  return c.json(outcome.generatedPassword === undefined ? body : { ...body, password: outcome.generatedPassword }, status);
};

/**
 * Extensions outside the spec (docs/api-overview.md, "Extensions"): who is logged in (`/v1/session`, every role) and the login
 * accounts (`/v1/accounts`, role operator or higher, each up to its own role; the rules live in services/accounts.ts, shared with
 * `npm run accounts`). Passwords are never answered, except a generated one, once.
 */
export function accountRoutes(router: Router, { accounts, sessions }: AppDeps): void {
  const tag = { tag: 'Accounts' };
  router.resource(
    '/v1/session',
    {
      GET: {
        summary: 'Who is logged in (extension)',
        responses: { 200: { description: "The session's account and role", body: SessionInfo } },
        handle: async (c) => {
          const { username, role } = c.var.session;
          return c.json({ username, role, passwordChangeRequired: await accounts.passwordOneTime(username) });
        },
      },
    },
    tag,
  );

  const admin =
    (handler: AppHandler): AppHandler =>
    (c, next) => {
      if (!roleAtLeast(c.var.session.role, ACCOUNT_ADMIN_ROLE)) {
        throw forbidden(`Managing accounts needs a session of role ${ACCOUNT_ADMIN_ROLE} or higher`);
      }
      // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- Hono's Handler answers HandlerResponse<any>
      return handler(c, next);
    };
  const actor = (c: AppContext) => ({ username: c.var.session.username, role: c.var.session.role, address: clientAddress(c) });
  const target = (c: AppContext) => c.req.param('username') ?? '';
  const role = ACCOUNT_ADMIN_ROLE;
  const failed = (description: string) => ({ description, body: OperationFailed });
  const forbiddenDoc = (why: string) => failed(`Forbidden: ${why}`);
  const unknown = failed('No such account');

  router.resource(
    '/v1/accounts',
    {
      GET: {
        summary: 'The login accounts (never a password)',
        role,
        responses: { 200: { description: 'The accounts', body: AccountList }, 403: forbiddenDoc(`a role below ${role}`) },
        handle: admin(async (c) => c.json({ accounts: (await accounts.list()).map(view) })),
      },
      POST: {
        summary: 'Add an account; a password left out is generated and answered once',
        role,
        body: AccountBody,
        responses: {
          201: { description: 'Added (with the generated password, Cache-Control: no-store)', body: AccountWithPassword },
          400: failed('A bad name, role or password, or a name in use'),
          403: forbiddenDoc("a role below operator, or a role above the caller's"),
        },
        handle: admin(async (c) => {
          const { username, role, password } = parseWith(AccountBody, await jsonBody(c));
          const outcome = await accounts.add(actor(c), username, role, password);
          return withPassword(c, outcome, view(outcome.account), 201);
        }),
      },
    },
    tag,
  );
  router.resource(
    '/v1/accounts/:username',
    {
      PATCH: {
        summary: "Change an account's role",
        role,
        body: AccountRoleBody,
        responses: {
          200: { description: 'The account', body: Account },
          400: failed('A bad role, or the last account of the highest role present'),
          403: forbiddenDoc("above the caller's role, or the caller's own account"),
          404: unknown,
        },
        handle: admin(async (c) => {
          const { role } = parseWith(AccountRoleBody, await jsonBody(c));
          return c.json(view(await accounts.setRole(actor(c), target(c), role)));
        }),
      },
      DELETE: {
        summary: 'Remove an account',
        role,
        responses: {
          204: 'Removed',
          400: failed('The last account of the highest role present'),
          403: forbiddenDoc("above the caller's role, or its own account"),
          404: unknown,
        },
        handle: admin(async (c) => {
          await accounts.remove(actor(c), target(c));
          return noContent(c);
        }),
      },
    },
    tag,
  );
  router.resource(
    '/v1/accounts/:username/password',
    {
      POST: {
        summary: "Set or generate an account's password; any role may change its own with currentPassword",
        description:
          `Another account's password: role ${role} or higher, not above the caller's role. The caller's own (any role): ` +
          "only with `currentPassword`; a wrong one answers 403 and ends the session, a right one keeps it. Another account's session ends.",
        body: { schema: AccountPasswordBody, required: false, description: "No body or {} generates one; currentPassword for the caller's own account" },
        responses: {
          200: { description: 'Set (with the generated password, Cache-Control: no-store)', body: PasswordReset },
          400: failed("A bad password or body, or the caller's own account without currentPassword"),
          403: forbiddenDoc(`another account for a role below ${role} or above the caller's role; a wrong currentPassword`),
          404: unknown,
        },
        handle: async (c) => {
          const own = target(c) === c.var.session.username;
          if (!own && !roleAtLeast(c.var.session.role, ACCOUNT_ADMIN_ROLE)) {
            throw forbidden(`Managing accounts needs a session of role ${ACCOUNT_ADMIN_ROLE} or higher`);
          }
          const body = await readJson(c);
          if (!body.ok && body.problem !== 'empty') throw invalid(body.detail);
          const { password, currentPassword } = parseWith(AccountPasswordBody, body.ok ? body.value : {});
          try {
            const outcome = await accounts.resetPassword(actor(c), target(c), password, own ? currentPassword : undefined);
            if (own) await sessions.keepAfterOwnChange(c.var.session);
            return withPassword(c, outcome, { success: true });
          } catch (err) {
            if (own && err instanceof OperationError && err.kind === 'forbidden') sessions.endAfterWrongPassword(c.var.session);
            throw err;
          }
        },
      },
    },
    tag,
  );
}
