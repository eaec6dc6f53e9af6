import type { AppDeps, Router } from '../types.js';
import type { SystemState } from '../../services/core/system-state.js';
import type { EnergyStatus } from '../../services/energy/contracts.js';
import { messageIn } from '../../services/message-translations.js';
import { Messages, SystemState as SystemStateBody } from '../responses.js';

const JSON_CONTENT = { 'Content-Type': 'application/json' } as const;

/** Spec 4.7. */
export function stateRoutes(router: Router, { charging, settings, energy }: AppDeps): void {
  // The state objects stay the same until something in them changes, and so does their JSON text.
  let shown: { state: SystemState; status: EnergyStatus | undefined; json: string } | undefined;
  const tag = { tag: 'State' };
  router.resource(
    '/v1/system_state',
    {
      GET: {
        summary: 'The state of the charge point, with the running transaction',
        responses: { 200: { description: 'SystemState (spec 2.13), with the extension `energy` (docs/energy.md)', body: SystemStateBody } },
        handle: (c) => {
          const state = charging.chargePoint.state();
          const status = energy?.status();
          if (shown?.state !== state || shown.status !== status) {
            shown = { state, status, json: JSON.stringify(status ? { ...state, energy: status } : state) };
          }
          return c.body(shown.json, 200, JSON_CONTENT);
        },
      },
    },
    tag,
  );
  router.resource(
    '/v1/messages',
    {
      GET: {
        summary: 'Current errors and warnings, in the language of the Language setting',
        responses: { 200: { description: 'The messages (spec 2.14)', body: Messages } },
        handle: (c) => c.json({ messages: charging.chargePoint.messages().map((m) => messageIn(settings.language(), m)) }),
      },
    },
    tag,
  );
}
