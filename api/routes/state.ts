import type { AppDeps, Router } from '../app.js';

/** Spec 4.7. */
export function stateRoutes(router: Router, { charging }: AppDeps): void {
  router.resource('/v1/system_state', { GET: (c) => c.json(charging.chargePoint.state()) });
  router.resource('/v1/messages', { GET: (c) => c.json({ messages: charging.chargePoint.messages() }) });
}
