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

/**
 * The root actor of the main thread. Every actor of the API's side is invoked here with a `systemId`, so the
 * thread has one actor system: one clock (injectable for tests), one inspection stream, and `system.get(id)` to
 * reach each actor (the MQTT and OCPP links too: they run here, beside the API). The charge cycle runs in the charge-point
 * core's own thread (machines/core.ts). Effects are provided from outside with `controllerMachine.provide({ actors: … })`.
 */
export const controllerMachine = setup({
  types: { input: {} as ControllerInput, context: {} as ControllerInput },
  actors: { session: sessionMachine, pairing: pairingMachine, nfcLink: nfcLinkMachine, mqtt: mqttMachine, backendLink: backendLinkMachine },
}).createMachine({
  id: 'controller',
  context: ({ input }) => input ?? {},
  invoke: [
    { src: 'session', id: 'session', systemId: 'session' },
    { src: 'pairing', id: 'pairing', systemId: 'pairing' },
    { src: 'nfcLink', id: 'nfcLink', systemId: 'nfcLink' },
    { src: 'mqtt', id: 'mqtt', systemId: 'mqtt' },
    {
      src: 'backendLink',
      id: 'backendLink',
      systemId: 'backendLink',
      input: ({ context }) => context.backendLink ?? { heartbeatMs: DEFAULT_HEARTBEAT_MS },
    },
  ],
});

export type SessionActor = ActorRefFrom<typeof sessionMachine>;
export type PairingActor = ActorRefFrom<typeof pairingMachine>;
export type NfcLinkActor = ActorRefFrom<typeof nfcLinkMachine>;
export type BackendLinkActor = ActorRefFrom<typeof backendLinkMachine>;
export type MqttActor = ActorRefFrom<typeof mqttMachine>;
