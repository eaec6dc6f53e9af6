import { roleAtLeast } from '../../services/accounts.js';
import { forbidden } from '../../services/errors.js';
import { OperationFailed } from '../responses.js';
import type { FieldServiceDeps, Router } from '../types.js';
import { FIELD_SERVICE_ROLE } from './field-service.js';

/**
 * Extension outside the spec: GET /v1/diagnostics (role installer), the diagnostics bundle (docs/field-service.md):
 * recent log, event log, settings without secrets, versions, metrics, the last core reactions, the database check.
 */
export function diagnosticsRoutes(router: Router, { diagnostics }: Pick<FieldServiceDeps, 'diagnostics'>): void {
  router.resource(
    '/v1/diagnostics',
    {
      GET: {
        summary: 'The diagnostics bundle: recent log, event log, settings without secrets, versions, metrics, core reactions, database check (extension)',
        role: FIELD_SERVICE_ROLE,
        responses: {
          200: { description: 'The bundle, gzip-compressed JSON (Content-Disposition: attachment)', type: 'application/gzip' },
          403: { description: `A role below ${FIELD_SERVICE_ROLE}`, body: OperationFailed },
        },
        handle: async (c) => {
          if (!roleAtLeast(c.var.session.role, FIELD_SERVICE_ROLE)) throw forbidden(`The diagnostics need a session of role ${FIELD_SERVICE_ROLE} or higher`);
          const { bytes, fileName } = await diagnostics.bundle();
          return c.body(new Uint8Array(bytes), 200, {
            'Content-Type': 'application/gzip',
            'Content-Disposition': `attachment; filename="${fileName}"`,
            'Cache-Control': 'no-store',
          });
        },
      },
    },
    { tag: 'System' },
  );
}
