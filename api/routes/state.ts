import type { AppDeps, Router } from '../app.js';
import type { SystemState } from '../../services/charge-point.js';
import { messageIn } from '../../services/messages.js';

const JSON_CONTENT = { 'Content-Type': 'application/json' } as const;

/** Spec 4.7. */
export function stateRoutes(router: Router, { charging, settings }: AppDeps): void {
  // The state object stays the same until something in it changes, and so does its JSON text.
  let shown: { state: SystemState; json: string } | undefined;
  router.resource('/v1/system_state', {
    GET: (c) => {
      const state = charging.chargePoint.state();
      if (shown?.state !== state) shown = { state, json: JSON.stringify(state) };
      return c.body(shown.json, 200, JSON_CONTENT);
    },
  });
  // In the language the Language setting selects (services/i18n.ts).
  router.resource('/v1/messages', { GET: (c) => c.json({ messages: charging.chargePoint.messages().map((m) => messageIn(settings.language(), m)) }) });
}
