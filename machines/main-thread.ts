import { setup, type ActorRefFrom } from 'xstate';
import { backendLinkMachine, type BackendLinkInput } from './backend-link.js';
import { mqttMachine } from './mqtt.js';
import { nfcLinkMachine } from './nfc-link.js';
import { pairingMachine } from './pairing.js';
import { sessionMachine } from './session.js';
import { siteMembershipMachine, type SiteMembershipInput } from './site-membership.js';
import { solarMachine, type SolarInput } from './solar.js';

export interface ControllerInput {
  backendLink?: BackendLinkInput;
  /** The solar start/stop actor's mode, parameters and minimum power (the energy manager keeps them current). */
  solar?: SolarInput;
  siteMembership?: SiteMembershipInput;
}

/** Heartbeat interval of the backend link when none is given (the OcppHeartbeatInterval setting's default). */
const DEFAULT_HEARTBEAT_MS = 300_000;

const actors = {
  session: sessionMachine,
  pairing: pairingMachine,
  nfcLink: nfcLinkMachine,
  mqtt: mqttMachine,
  backendLink: backendLinkMachine,
  solar: solarMachine,
  siteMembership: siteMembershipMachine,
};

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
    // Energy management (docs/energy.md): driven by the allocator loop and the site link (services/energy/).
    // Without a minimum power given, the loop's first SURPLUS event brings it.
    { ...invoked('solar'), input: ({ context }) => context.solar ?? { minimumW: 0 } },
    { ...invoked('siteMembership'), input: ({ context }) => context.siteMembership ?? {} },
  ],
});

export type SessionActor = ActorRefFrom<typeof sessionMachine>;
export type PairingActor = ActorRefFrom<typeof pairingMachine>;
export type NfcLinkActor = ActorRefFrom<typeof nfcLinkMachine>;
export type BackendLinkActor = ActorRefFrom<typeof backendLinkMachine>;
export type MqttActor = ActorRefFrom<typeof mqttMachine>;
export type SolarActor = ActorRefFrom<typeof solarMachine>;
export type SiteMembershipActor = ActorRefFrom<typeof siteMembershipMachine>;
