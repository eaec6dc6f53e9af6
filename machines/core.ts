import { setup, type ActorRefFrom } from 'xstate';
import { chargeCycleMachine, type ChargeInput } from './charge-cycle.js';
import { phaseSwitchMachine, type PhaseSwitchInput } from './phase-switch.js';

export interface CoreInput {
  chargeCycle: ChargeInput;
  /** The 1-/3-phase switch (idle for ever without a phase contactor: it is sent nothing). */
  phaseSwitch: PhaseSwitchInput;
}

/**
 * The root actor of the charge-point core (services/core/), the thread that owns the safety-critical charge cycle
 * apart from the API, NFC and the database. Its actors are invoked with a `systemId`, like the main thread's
 * (machines/main-thread.ts): one clock and one inspection stream per thread. Effects are provided from outside with
 * `coreMachine.provide({ actors: … })`.
 */
export const coreMachine = setup({
  types: { input: {} as CoreInput, context: {} as CoreInput },
  actors: { chargeCycle: chargeCycleMachine, phaseSwitch: phaseSwitchMachine },
}).createMachine({
  id: 'chargePointCore',
  context: ({ input }) => input,
  invoke: [
    { src: 'chargeCycle', id: 'chargeCycle', systemId: 'chargeCycle', input: ({ context }) => context.chargeCycle },
    { src: 'phaseSwitch', id: 'phaseSwitch', systemId: 'phaseSwitch', input: ({ context }) => context.phaseSwitch },
  ],
});

export type ChargeCycleActor = ActorRefFrom<typeof chargeCycleMachine>;
export type PhaseSwitchActor = ActorRefFrom<typeof phaseSwitchMachine>;
