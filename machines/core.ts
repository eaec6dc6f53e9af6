import { setup, type ActorRefFrom } from 'xstate';
import { chargeCycleMachine, type ChargeInput } from './charge-cycle.js';

export interface CoreInput {
  chargeCycle: ChargeInput;
}

/**
 * The root actor of the charge-point core (services/core/), the thread that owns the safety-critical charge cycle
 * apart from the API, NFC and the database. Its actors are invoked with a `systemId`, like the main thread's
 * (machines/main-thread.ts): one clock and one inspection stream per thread. Effects are provided from outside with
 * `coreMachine.provide({ actors: … })`.
 */
export const coreMachine = setup({
  types: { input: {} as CoreInput, context: {} as CoreInput },
  actors: { chargeCycle: chargeCycleMachine },
}).createMachine({
  id: 'chargePointCore',
  context: ({ input }) => input,
  invoke: [{ src: 'chargeCycle', id: 'chargeCycle', systemId: 'chargeCycle', input: ({ context }) => context.chargeCycle }],
});

export type ChargeCycleActor = ActorRefFrom<typeof chargeCycleMachine>;
