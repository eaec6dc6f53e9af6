import * as v from 'valibot';
import { roleAtLeast } from '../../services/accounts.js';
import { forbidden } from '../../services/errors.js';
import type { UpdateInstaller } from '../../services/field-service/updates.js';
import { OperationFailed } from '../responses.js';
import type { Router } from '../types.js';
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

/**
 * Extension outside the spec: GET /v1/updates (role installer), the installed versions and the update history
 * (docs/field-service.md#installing-an-update). Only where the controller runs under the launcher.
 */
export function updateRoutes(router: Router, updates: UpdateInstaller): void {
  router.resource(
    '/v1/updates',
    {
      GET: {
        summary: 'The installed versions (A/B slots), the update on trial and the update history (extension)',
        role: FIELD_SERVICE_ROLE,
        responses: {
          200: { description: 'The slots and the history', body: UpdatesBody },
          403: { description: `A role below ${FIELD_SERVICE_ROLE}`, body: OperationFailed },
        },
        handle: (c) => {
          if (!roleAtLeast(c.var.session.role, FIELD_SERVICE_ROLE))
            throw forbidden(`The update history needs a session of role ${FIELD_SERVICE_ROLE} or higher`);
          const { state, history } = updates.status();
          return c.json({ active: state.active, versions: state.versions, trial: state.trial, history });
        },
      },
    },
    { tag: 'System' },
  );
}
