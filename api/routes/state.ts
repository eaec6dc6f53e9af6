import type { Hono } from 'hono';
import { resource, type AppDeps, type AppEnv } from '../app.js';

/** Spec 4.7. */
export function stateRoutes(app: Hono<AppEnv>, { chargePoint }: AppDeps): void {
  resource(app, '/v1/system_state', { GET: (c) => c.json(chargePoint.state()) });
  resource(app, '/v1/messages', { GET: (c) => c.json({ messages: chargePoint.messages() }) });
}
