import { readFile, rm } from 'node:fs/promises';
import * as v from 'valibot';
import { roleAtLeast } from '../../services/accounts.js';
import { conflict, forbidden, internal, invalid } from '../../services/errors.js';
import { InstallFailed } from '../../services/field-service/install-update.js';
import { UpdateRefused } from '../../services/field-service/update-file.js';
import type { UpdateInstaller } from '../../services/field-service/updates.js';
import { OperationFailed } from '../responses.js';
import type { AppContext, Router } from '../types.js';
import { MAX_UPDATE_FILE_BYTES } from '../../services/field-service/update-file.js';
import { receiveToFile } from '../upload-body.js';
import { FIELD_SERVICE_ROLE } from './field-service.js';

const Slot = v.picklist(['base', 'a', 'b']);
const UpdatesBody = v.object({
  active: v.pipe(Slot, v.description('The slot that runs (base: the tree installed by hand)')),
  versions: v.pipe(v.record(v.string(), v.string()), v.description('The version each slot holds')),
  trial: v.pipe(
    v.nullable(
      v.object({
        slot: Slot,
        version: v.string(),
        fromSlot: Slot,
        fromVersion: v.string(),
        firstNewMigration: v.nullable(v.string()),
        installedAt: v.string(),
        attempts: v.number(),
        rollingBack: v.optional(v.string()),
        switchMode: v.optional(v.pipe(v.picklist(['wait-for-idle', 'finish-charge']), v.description('How the running controller switches to it'))),
      }),
    ),
    v.description('The update installed and waiting for or on its trial, or null'),
  ),
  maxUploadBytes: v.pipe(v.number(), v.description('The largest update file POST /v1/updates takes (bytes)')),
  history: v.pipe(
    v.array(
      v.object({
        at: v.string(),
        event: v.picklist(['installed', 'committed', 'rolled-back', 'install-failed']),
        version: v.string(),
        slot: v.optional(Slot),
        fromVersion: v.optional(v.string()),
        reason: v.optional(v.string()),
      }),
    ),
    v.description('Installed, committed, rolled back (with the reason), install failed: the newest last'),
  ),
});

const Installed = v.object({
  success: v.literal(true),
  version: v.pipe(v.string(), v.description('The version installed')),
  slot: v.pipe(v.picklist(['a', 'b']), v.description('The slot it went into')),
  fromVersion: v.pipe(v.string(), v.description('The version that runs now')),
  switchesWhenIdle: v.pipe(v.literal(true), v.description('The controller switches to it at the first moment no charge runs')),
});

const refuseBelowRole = (c: AppContext, what: string) => {
  if (!roleAtLeast(c.var.session.role, FIELD_SERVICE_ROLE)) throw forbidden(`${what} needs a session of role ${FIELD_SERVICE_ROLE} or higher`);
};

/**
 * Extension outside the spec (docs/field-service.md#installing-an-update), role installer, only where the controller
 * runs under the launcher: GET /v1/updates, the installed versions and the update history; POST /v1/updates, an
 * update file uploaded as the raw body (HTTP only), received into a temporary file and installed by the same
 * installer as `npm run update` and OCPP UpdateFirmware.
 */
export function updateRoutes(router: Router, updates: UpdateInstaller): void {
  /** One upload at a time: a second would fill the card with another copy, and only one update can wait for its trial. */
  let receiving = false;
  router.resource(
    '/v1/updates',
    {
      POST: {
        summary: 'Upload and install an update file; the controller switches to it at the first moment no charge runs (extension, HTTP only)',
        description:
          `The raw update file (.ccupdate) as the body, at most ${MAX_UPDATE_FILE_BYTES / 1024 / 1024} MiB. The role is checked before the ` +
          'body is read. The file is verified (signature by a trusted key, checksum, a newer version, the running version at least its minimum, ' +
          'its migrations, the architecture) and installed into the inactive slot for trial (docs/field-service.md): a refused file changes ' +
          'nothing. Not over NFC: one NFC request is at most 32 KiB.',
        role: FIELD_SERVICE_ROLE,
        body: { type: 'application/octet-stream', required: true, description: 'The update file as `npm run release` wrote it' },
        responses: {
          200: { description: 'Installed into its slot for trial', body: Installed },
          400: {
            description:
              'Refused, nothing changed: not an update file, unsigned, signed by no trusted key, damaged, not newer, another architecture; ' +
              'a body over the limit, none, too slow; sent over NFC',
            body: OperationFailed,
          },
          403: { description: `A role below ${FIELD_SERVICE_ROLE}`, body: OperationFailed },
          409: { description: 'An update waits for or is on its trial, or another upload is being received', body: OperationFailed },
          500: {
            description: 'The file passed verification but could not be installed (the reason; recorded in the history); nothing changed',
            body: OperationFailed,
          },
        },
        handle: async (c) => {
          refuseBelowRole(c, 'Installing an update');
          if (!c.env?.incoming) {
            throw invalid(`Upload update files over HTTP: one NFC request is at most 32 KiB, an update file is tens of MB`);
          }
          const { trial } = updates.status().state;
          if (trial) throw conflict(`Version ${trial.version} is installed and waiting for or on its trial: upload again once it is committed or rolled back`);
          if (receiving) throw conflict('Another update file is being uploaded: try again once it is installed or refused');
          receiving = true;
          try {
            const intake = c.get('intake');
            // Each piece counts as the session's activity (a long upload keeps it) and stops the upload once it ended.
            const body = await receiveToFile(c, updates.uploadFile, MAX_UPDATE_FILE_BYTES, () => intake.received?.(c));
            if (!body.ok) throw invalid(body.detail);
            const file = await readFile(updates.uploadFile);
            // The copy on the card goes before unpacking needs the space.
            await rm(updates.uploadFile, { force: true });
            const installed = await updates.install(file).catch((err: unknown) => {
              if (err instanceof UpdateRefused) throw invalid(err.message);
              if (err instanceof InstallFailed) throw internal(err.message);
              throw err;
            });
            return c.json({
              success: true as const,
              version: installed.manifest.version,
              slot: installed.slot,
              fromVersion: installed.fromVersion,
              switchesWhenIdle: true as const,
            });
          } finally {
            receiving = false;
            await rm(updates.uploadFile, { force: true });
          }
        },
      },
      GET: {
        summary: 'The installed versions (A/B slots), the update on trial and the update history (extension)',
        role: FIELD_SERVICE_ROLE,
        responses: {
          200: { description: 'The slots and the history', body: UpdatesBody },
          403: { description: `A role below ${FIELD_SERVICE_ROLE}`, body: OperationFailed },
        },
        handle: (c) => {
          refuseBelowRole(c, 'The update history');
          const { state, history } = updates.status();
          return c.json({ active: state.active, versions: state.versions, trial: state.trial, maxUploadBytes: MAX_UPDATE_FILE_BYTES, history });
        },
      },
    },
    { tag: 'System' },
  );
}
