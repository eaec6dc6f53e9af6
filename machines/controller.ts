import { setup, type ActorRefFrom } from 'xstate';
import { mqttMachine } from './mqtt.js';
import { nfcLinkMachine } from './nfc-link.js';
import { pairingMachine } from './pairing.js';
import { sessionMachine } from './session.js';

/**
 * The root actor of the main thread. Every actor of the API's side is invoked here with a `systemId`, so the
 * thread has one actor system: one clock (injectable for tests), one inspection stream, and `system.get(id)` to
 * reach each actor (the MQTT link too: it runs here, beside the API). The charge cycle runs in the charge-point
 * core's own thread (machines/core.ts). Effects are provided from outside with `controllerMachine.provide({ actors: … })`.
 */
export const controllerMachine = setup({
  actors: { session: sessionMachine, pairing: pairingMachine, nfcLink: nfcLinkMachine, mqtt: mqttMachine },
}).createMachine({
  id: 'controller',
  invoke: [
    { src: 'session', id: 'session', systemId: 'session' },
    { src: 'pairing', id: 'pairing', systemId: 'pairing' },
    { src: 'nfcLink', id: 'nfcLink', systemId: 'nfcLink' },
    { src: 'mqtt', id: 'mqtt', systemId: 'mqtt' },
  ],
});

export type SessionActor = ActorRefFrom<typeof sessionMachine>;
export type PairingActor = ActorRefFrom<typeof pairingMachine>;
export type NfcLinkActor = ActorRefFrom<typeof nfcLinkMachine>;
export type MqttActor = ActorRefFrom<typeof mqttMachine>;
