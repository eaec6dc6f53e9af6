import { setup, type ActorRefFrom } from 'xstate';
import { chargeCycleMachine, type ChargeInput } from './charge-cycle.js';
import { nfcLinkMachine } from './nfc-link.js';
import { pairingMachine } from './pairing.js';
import { sessionMachine } from './session.js';

export interface ControllerInput {
  chargeCycle: ChargeInput;
}

/**
 * The controller's root actor. Every domain actor is invoked here with a `systemId`, so the process has one actor
 * system: one clock (injectable for tests), one inspection stream, and `system.get(id)` to reach each actor.
 * Effects (transactions, buzzer) are provided from outside with `controllerMachine.provide({ actors: … })`.
 */
export const controllerMachine = setup({
  types: { input: {} as ControllerInput, context: {} as ControllerInput },
  actors: { session: sessionMachine, chargeCycle: chargeCycleMachine, pairing: pairingMachine, nfcLink: nfcLinkMachine },
}).createMachine({
  id: 'controller',
  context: ({ input }) => input,
  invoke: [
    { src: 'session', id: 'session', systemId: 'session' },
    { src: 'chargeCycle', id: 'chargeCycle', systemId: 'chargeCycle', input: ({ context }) => context.chargeCycle },
    { src: 'pairing', id: 'pairing', systemId: 'pairing' },
    { src: 'nfcLink', id: 'nfcLink', systemId: 'nfcLink' },
  ],
});

export type SessionActor = ActorRefFrom<typeof sessionMachine>;
export type ChargeCycleActor = ActorRefFrom<typeof chargeCycleMachine>;
export type PairingActor = ActorRefFrom<typeof pairingMachine>;
export type NfcLinkActor = ActorRefFrom<typeof nfcLinkMachine>;
