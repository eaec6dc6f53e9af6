import type { AppDeps, Router } from '../app.js';

/** Spec 4.7. */
export function stateRoutes(router: Router, { chargePoint }: AppDeps): void {
  router.resource('/v1/system_state', { GET: (c) => c.json(chargePoint.state()) });
  router.resource('/v1/messages', { GET: (c) => c.json({ messages: chargePoint.messages() }) });
}
