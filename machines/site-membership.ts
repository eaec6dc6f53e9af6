import { assign, setup, type SnapshotFrom } from 'xstate';

/**
 * This charger's membership of a site whose chargers share one grid connection (docs/energy.md, "Site"). It says
 * which share applies; the shares themselves are computed by services/energy/site-share.ts, the same on every
 * charger.
 *
 * - `off`: not on a site (site sharing off): no site limit.
 * - `joining` (tag `safe`): connected, the peers' retained demands are arriving; the share is at most the safe
 *   share until the join time has passed.
 * - `member`: the computed share applies (tag `share`): lower at once, higher after the raise delay; in
 *   `member.complete` (tag `raise`) a higher share may be applied, in `member.peerSilent` not (a peer that is
 *   silent may not have seen this charger's demand, so nothing is raised while it is).
 * - `brokerLost.safe` (tag `safe`): the broker is unreachable, the share falls to the safe share at once; after the
 *   reserve time (as long as the peers keep it reserved) `brokerLost.isolated` (tag `pause`): share 0.
 * Reconnecting starts joining again.
 */

export interface SiteMembershipParams {
  /** After connecting, the time the broker needs to deliver the retained demands (ms). */
  joinMs: number;
  /** Without the broker, the safe share is used this long, then none (ms): the peers reserve it exactly so long. */
  reserveMs: number;
}

export const SITE_MEMBERSHIP_DEFAULTS: SiteMembershipParams = {
  joinMs: 3_000,
  reserveMs: 900_000,
};

export interface SiteMembershipContext {
  params: SiteMembershipParams;
  /** The MQTT connection is up. */
  connected: boolean;
  /** A peer is silent (site-share.ts's peerStatus). */
  peerSilent: boolean;
}

export interface SiteMembershipInput {
  params?: Partial<SiteMembershipParams>;
  connected?: boolean;
}

export type SiteMembershipEvent =
  /** Site sharing turned on or off (settings). */
  | { type: 'SITE'; on: boolean }
  | { type: 'CONNECTED' }
  | { type: 'DISCONNECTED' }
  /** Whether any peer is silent now (site-share.ts's peerStatus). */
  | { type: 'PEERS'; silent: boolean }
  | { type: 'PARAMS'; params: Partial<SiteMembershipParams> };

export const siteMembershipMachine = setup({
  types: { context: {} as SiteMembershipContext, events: {} as SiteMembershipEvent, input: {} as SiteMembershipInput },
  actions: {
    connected: assign({ connected: true }),
    disconnected: assign({ connected: false }),
    assignPeers: assign({ peerSilent: ({ context, event }) => (event.type === 'PEERS' ? event.silent : context.peerSilent) }),
    assignParams: assign({ params: ({ context, event }) => (event.type === 'PARAMS' ? { ...context.params, ...event.params } : context.params) }),
  },
  guards: {
    siteOn: ({ event }) => event.type === 'SITE' && event.on,
    siteOff: ({ event }) => event.type === 'SITE' && !event.on,
    isConnected: ({ context }) => context.connected,
    peerSilent: ({ context }) => context.peerSilent,
    allHeard: ({ context }) => !context.peerSilent,
  },
  delays: {
    join: ({ context }) => context.params.joinMs,
    reserve: ({ context }) => context.params.reserveMs,
  },
}).createMachine({
  id: 'siteMembership',
  context: ({ input }) => ({ params: { ...SITE_MEMBERSHIP_DEFAULTS, ...input.params }, connected: input.connected ?? false, peerSilent: false }),
  initial: 'off',
  on: {
    CONNECTED: { actions: 'connected' },
    DISCONNECTED: { actions: 'disconnected' },
    PEERS: { actions: 'assignPeers' },
    PARAMS: { actions: 'assignParams' },
  },
  states: {
    off: {
      on: { SITE: { guard: 'siteOn', target: 'on' } },
    },
    /** Site sharing on: the connection decides where. */
    on: {
      initial: 'entering',
      on: { SITE: { guard: 'siteOff', target: 'off' } },
      states: {
        entering: {
          always: [{ guard: 'isConnected', target: 'joining' }, { target: 'brokerLost' }],
        },
        joining: {
          tags: ['safe'],
          after: { join: 'member' },
          on: { DISCONNECTED: { target: 'brokerLost', actions: 'disconnected' } },
        },
        member: {
          tags: ['share'],
          initial: 'complete',
          on: { DISCONNECTED: { target: 'brokerLost', actions: 'disconnected' } },
          states: {
            complete: { tags: ['raise'], always: { guard: 'peerSilent', target: 'peerSilent' } },
            peerSilent: { always: { guard: 'allHeard', target: 'complete' } },
          },
        },
        brokerLost: {
          initial: 'safe',
          on: { CONNECTED: { target: 'joining', actions: 'connected' } },
          states: {
            safe: { tags: ['safe'], after: { reserve: 'isolated' } },
            isolated: { tags: ['pause'] },
          },
        },
      },
    },
  },
});

export type SiteMembershipSnapshot = SnapshotFrom<typeof siteMembershipMachine>;
