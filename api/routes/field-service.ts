import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import type { Role } from '../../db/schema.js';
import { secretEquals } from '../../machines/secrets.js';
import { INITIAL_OPERATOR, roleAtLeast } from '../../services/accounts.js';
import { conflict, forbidden, invalid } from '../../services/errors.js';
import { parseWith, readJson } from '../body.js';
import { operationSucceeded } from '../errors.js';
import { OperationFailed, OperationSucceeded } from '../responses.js';
import { clientAddress, type AppContext, type AppDeps, type FieldServiceDeps, type Router } from '../types.js';

/** The lowest role that may back up, restore and reset the controller (the backup holds every password). */
export const FIELD_SERVICE_ROLE: Role = 'installer';
/** How long a factory reset's confirmation token is valid. */
export const FACTORY_RESET_CONFIRM_MS = 60_000;

const RestoreBody = v.strictObject(
  {
    backup: v.pipe(
      v.string('backup must be the backup file, base64-encoded'),
      v.base64('backup must be the backup file, base64-encoded'),
      v.description('The backup file (as GET /v1/backup gives it), base64-encoded'),
    ),
    keepNetwork: v.optional(v.pipe(v.boolean('keepNetwork must be true or false'), v.description("Keep this controller's LAN and GSM settings"))),
    keepIdentity: v.optional(
      v.pipe(
        v.boolean('keepIdentity must be true or false'),
        v.description("Keep this controller's charge box id and OCPP password, MQTT client id and base topic, and its OCPP tables"),
      ),
    ),
  },
  'The body must be {"backup": base64, "keepNetwork"?: boolean, "keepIdentity"?: boolean}',
);
const ResetBody = v.strictObject(
  { confirmation: v.pipe(v.string('confirmation must be a string'), v.description('The token the first call answered')) },
  'The body must be nothing (ask for a confirmation token) or {"confirmation": token}',
);
const ResetToken = v.object({
  confirmation: v.pipe(v.string(), v.description(`Send it back within ${FACTORY_RESET_CONFIRM_MS / 1000} s to reset`)),
  expiresInSeconds: v.number(),
});

const refuseBelowRole = (c: AppContext, what: string) => {
  if (!roleAtLeast(c.var.session.role, FIELD_SERVICE_ROLE)) throw forbidden(`${what} needs a session of role ${FIELD_SERVICE_ROLE} or higher`);
};

/**
 * Extension outside the spec (docs/field-service.md): GET /v1/backup, POST /v1/backup/restore and POST
 * /v1/factory-reset, role installer. Restore and reset answer first and then restart the controller, which ends
 * every session and reads everything afresh; neither runs while a transaction runs (409).
 */
export function fieldServiceRoutes(
  router: Router,
  { events, charging, now, restart }: Pick<AppDeps, 'events' | 'charging' | 'now' | 'restart'>,
  api: FieldServiceDeps,
): void {
  const { backups } = api;
  const noTransaction = (what: string) => {
    if (charging.chargePoint.state().transaction !== undefined) throw conflict(`A transaction is running: ${what} once it has ended`);
  };
  const who = (c: AppContext) => ({ by: c.var.session.username, address: clientAddress(c) });

  router.resource(
    '/v1/backup',
    {
      GET: {
        summary: 'The backup file: settings, accounts, whitelist, users, map, transactions, event log, OCPP data (extension)',
        description:
          'gzip-compressed JSON, format documented in docs/field-service.md. It holds every login password as stored: keep it as safely as the controller.',
        role: FIELD_SERVICE_ROLE,
        responses: {
          200: { description: 'The backup file (Content-Disposition: attachment)', type: 'application/gzip' },
          403: { description: `A role below ${FIELD_SERVICE_ROLE}`, body: OperationFailed },
        },
        handle: async (c) => {
          refuseBelowRole(c, 'A backup');
          const { bytes, createdAt, serialNumber } = await backups.take();
          events.record({ kind: 'backup_downloaded', ...who(c) });
          const name = `charge-controller-${serialNumber.replace(/[^A-Za-z0-9_-]/g, '') || 'backup'}-${createdAt.replace(/[:.]/g, '-')}.ccbackup`;
          return c.body(new Uint8Array(bytes), 200, {
            'Content-Type': 'application/gzip',
            'Content-Disposition': `attachment; filename="${name}"`,
            'Cache-Control': 'no-store',
          });
        },
      },
    },
    { tag: 'System' },
  );
  if (!restart) return;

  router.resource(
    '/v1/backup/restore',
    {
      POST: {
        summary: 'Restore a backup file, then restart; every session ends (extension)',
        description:
          'The file is checked first (format version, checksum, schema level: a newer one is refused); a backup of an older firmware is migrated as a ' +
          'start would. Every table is replaced in one write: a file that fails any check changes nothing. keepNetwork/keepIdentity keep the ' +
          "controller's own network settings / identity (for a replacement unit that keeps its own place).",
        role: FIELD_SERVICE_ROLE,
        body: RestoreBody,
        responses: {
          200: { description: 'Restored; the restart begins once this answer is on its way', body: OperationSucceeded },
          400: { description: 'A malformed body, or a file that is damaged, not a backup, or of a newer firmware (nothing changed)', body: OperationFailed },
          403: { description: `A role below ${FIELD_SERVICE_ROLE}`, body: OperationFailed },
          409: { description: 'A transaction is running', body: OperationFailed },
        },
        handle: async (c) => {
          refuseBelowRole(c, 'A restore');
          const body = await readJson(c);
          if (!body.ok) throw invalid(body.detail);
          const { backup, keepNetwork = false, keepIdentity = false } = parseWith(RestoreBody, body.value);
          noTransaction('restore');
          const restored = await backups.restore(Buffer.from(backup, 'base64'), { keepNetwork, keepIdentity });
          events.record({ kind: 'backup_restored', ...who(c), backupCreatedAt: restored.createdAt, keptNetwork: keepNetwork, keptIdentity: keepIdentity });
          setImmediate(restart);
          return operationSucceeded(c);
        },
      },
    },
    { tag: 'System' },
  );

  /** The confirmation token a first call gave: valid for its session, once, until it expires. */
  let pending: { token: string; sessionId: string; expiresAt: number } | null = null;
  router.resource(
    '/v1/factory-reset',
    {
      POST: {
        summary: 'Factory reset in two steps: ask for a confirmation token, then send it back (extension)',
        description:
          `Without a body: 200 with a confirmation token, valid ${FACTORY_RESET_CONFIRM_MS / 1000} s for this session. With {"confirmation": token}: ` +
          `every setting, account, whitelist entry, user, pair, transaction and event is erased, the account ${INITIAL_OPERATOR} gets a new ` +
          'one-time password shown on the console (as on the first start), and the controller restarts.',
        role: FIELD_SERVICE_ROLE,
        body: { schema: ResetBody, required: false, description: 'Nothing (step 1) or the confirmation token (step 2)' },
        responses: {
          200: { description: 'Step 1: the token; step 2: {success: true}, then the restart', body: v.union([ResetToken, OperationSucceeded]) },
          400: { description: 'A malformed body, or a token that is wrong, expired or of another session (nothing erased)', body: OperationFailed },
          403: { description: `A role below ${FIELD_SERVICE_ROLE}`, body: OperationFailed },
          409: { description: 'A transaction is running', body: OperationFailed },
        },
        handle: async (c) => {
          refuseBelowRole(c, 'A factory reset');
          const body = await readJson(c);
          if (!body.ok && body.problem !== 'empty') throw invalid(body.detail);
          noTransaction('reset the controller');
          const at = now();
          if (!body.ok) {
            pending = { token: randomBytes(16).toString('hex'), sessionId: c.var.session.id, expiresAt: at + FACTORY_RESET_CONFIRM_MS };
            c.header('Cache-Control', 'no-store');
            return c.json({ confirmation: pending.token, expiresInSeconds: FACTORY_RESET_CONFIRM_MS / 1000 });
          }
          const { confirmation } = parseWith(ResetBody, body.value);
          const asked = pending;
          if (!asked || asked.sessionId !== c.var.session.id || !secretEquals(asked.token, confirmation)) {
            throw invalid('The confirmation token is wrong or of another session: ask for one with an empty POST first');
          }
          if (at > asked.expiresAt) {
            pending = null;
            throw invalid(`The confirmation token has expired (it is valid ${FACTORY_RESET_CONFIRM_MS / 1000} s): ask for a new one`);
          }
          pending = null;
          const password = await backups.factoryReset();
          api.showInitialPassword(INITIAL_OPERATOR, password);
          events.record({ kind: 'factory_reset', ...who(c) });
          setImmediate(restart);
          return operationSucceeded(c);
        },
      },
    },
    { tag: 'System' },
  );
}
