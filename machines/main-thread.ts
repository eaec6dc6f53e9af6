import { setup, type ActorRefFrom } from 'xstate';
import { backendLinkMachine, type BackendLinkInput } from './backend-link.js';
import { mqttMachine } from './mqtt.js';
import { nfcLinkMachine } from './nfc-link.js';
import { pairingMachine } from './pairing.js';
import { sessionMachine } from './session.js';

export interface ControllerInput {
  backendLink?: BackendLinkInput;
}

/** Heartbeat interval of the backend link when none is given (the OcppHeartbeatInterval setting's default). */
const DEFAULT_HEARTBEAT_MS = 300_000;

const actors = { session: sessionMachine, pairing: pairingMachine, nfcLink: nfcLinkMachine, mqtt: mqttMachine, backendLink: backendLinkMachine };

/** An actor invoked under its name: the name is its src, its id and its systemId (the services reach it by `system.get(name)`). */
const invoked = <N extends keyof typeof actors>(name: N) => ({ src: name, id: name, systemId: name }) as const;

/**
 * The root actor of the main thread. Every actor of the API's side is invoked here with a `systemId`, so the
 * thread has one actor system: one clock (injectable for tests), one inspection stream, and `system.get(id)` to
 * reach each actor (the MQTT and OCPP links too: they run here, beside the API). The charge cycle runs in the charge-point
 * core's own thread (machines/core.ts). Effects are provided from outside with `controllerMachine.provide({ actors: … })`.
 */
export const controllerMachine = setup({
  // Stryker disable next-line ObjectLiteral: `types` carries TypeScript types only; XState ignores it at run time.
  types: { input: {} as ControllerInput, context: {} as ControllerInput },
  actors,
}).createMachine({
  id: 'controller',
  context: ({ input }) => input ?? {},
  invoke: [
    invoked('session'),
    invoked('pairing'),
    invoked('nfcLink'),
    invoked('mqtt'),
    { ...invoked('backendLink'), input: ({ context }) => context.backendLink ?? { heartbeatMs: DEFAULT_HEARTBEAT_MS } },
  ],
});

export type SessionActor = ActorRefFrom<typeof sessionMachine>;
export type PairingActor = ActorRefFrom<typeof pairingMachine>;
export type NfcLinkActor = ActorRefFrom<typeof nfcLinkMachine>;
export type BackendLinkActor = ActorRefFrom<typeof backendLinkMachine>;
export type MqttActor = ActorRefFrom<typeof mqttMachine>;
