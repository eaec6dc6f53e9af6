import type { AppDeps, Router } from '../types.js';
import type { SystemState } from '../../services/core/system-state.js';
import { messageIn } from '../../services/message-translations.js';
import { Messages, SystemState as SystemStateBody } from '../responses.js';

const JSON_CONTENT = { 'Content-Type': 'application/json' } as const;

/** Spec 4.7. */
export function stateRoutes(router: Router, { charging, settings, energy }: AppDeps): void {
  // The state object stays the same until something in it changes, and so does its JSON text.
  let shown: { state: SystemState; json: string } | undefined;
  const tag = { tag: 'State' };
  router.resource(
    '/v1/system_state',
    {
      GET: {
        summary: 'The state of the charge point, with the running transaction',
        responses: { 200: { description: 'SystemState (spec 2.13)', body: SystemStateBody } },
        handle: (c) => {
          const state = charging.chargePoint.state();
          // The documented extension (docs/energy.md): energy management's report, when it runs.
          if (energy) return c.json({ ...state, energy: energy.status() });
          if (shown?.state !== state) shown = { state, json: JSON.stringify(state) };
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
