import { setup, type ActorRefFrom } from 'xstate';
import { sessionMachine } from './session.js';

/**
 * The controller's root actor. Every domain actor is invoked here with a `systemId`, so the process has one actor
 * system: one clock (injectable for tests), one inspection stream, and `system.get(id)` to reach each actor.
 */
export const controllerMachine = setup({
  actors: { session: sessionMachine },
}).createMachine({
  id: 'controller',
  invoke: [{ src: 'session', id: 'session', systemId: 'session' }],
});

export type SessionActor = ActorRefFrom<typeof sessionMachine>;
