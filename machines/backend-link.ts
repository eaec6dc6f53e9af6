import { assign, setup, type SnapshotFrom } from 'xstate';
import { exponentialBackoff } from './backoff.js';

/**
 * The link to the OCPP 1.6 central system (CSMS), as one actor.
 *
 * - `disconnected`: OCPP is off (or the controller is stopping); START connects.
 * - `connecting`: the WebSocket is being opened (`openSocket`); a failure waits in `backoff` (5 s, doubling up to
 *   5 min) and tries again, the first connection as every later one: the transport never reconnects by itself.
 * - `connected`: the socket is open. Nothing but BootNotification is sent before the CSMS accepted it:
 *   `booting` sends it; `pending` and `rejected` wait the interval the CSMS gave (the CSMS may send its own calls
 *   while pending, none are answered while rejected); `accepted` is online (`online` on entry, `offline` on exit:
 *   the service replays its queue, sends the status, answers the CSMS) and sends a Heartbeat every heartbeat
 *   interval. A closed socket (also one found dead by ping/pong) goes to `backoff` from any of them.
 *
 * Effects are provided from outside (services/ocpp/backend.ts); time comes from the actor clock.
 */

/** The first retry waits this long; each further one twice as long, up to BACKOFF_MAX_MS. */
export const BACKOFF_MIN_MS = 5_000;
export const BACKOFF_MAX_MS = 300_000;
/** A BootNotification that got no valid answer is sent again after this long. */
export const BOOT_RETRY_MS = 60_000;

/** The wait before the `attempts`-th retry. */
export const backoffMs = (attempts: number): number => exponentialBackoff(attempts, BACKOFF_MIN_MS, BACKOFF_MAX_MS);

export interface BackendLinkContext {
  /** Failed connections since the last accepted boot. */
  attempts: number;
  /** The interval the CSMS gave with Pending or Rejected (ms). */
  bootRetryMs: number;
  /** Heartbeat interval (ms): from the BootNotification answer, or the HeartbeatInterval setting. */
  heartbeatMs: number;
}

export interface BackendLinkInput {
  heartbeatMs: number;
}

export type BackendLinkEvent =
  | { type: 'START' }
  | { type: 'STOP' }
  | { type: 'SOCKET.OPENED' }
  | { type: 'SOCKET.FAILED' }
  | { type: 'SOCKET.CLOSED' }
  /** The BootNotification's answer (`intervalS`: the CSMS's interval, 0 = none given). */
  | { type: 'BOOT.ACCEPTED'; intervalS: number }
  | { type: 'BOOT.PENDING'; intervalS: number }
  | { type: 'BOOT.REJECTED'; intervalS: number }
  /** No valid answer to the BootNotification (a CALLERROR, a timeout). */
  | { type: 'BOOT.FAILED' }
  /** TriggerMessage(BootNotification) while pending. */
  | { type: 'BOOT.TRIGGERED' }
  /** A new heartbeat interval (ChangeConfiguration HeartbeatInterval, or the setting). */
  | { type: 'HEARTBEAT.INTERVAL'; seconds: number };

const intervalOf = (event: BackendLinkEvent, fallbackMs: number) => ('intervalS' in event && event.intervalS > 0 ? event.intervalS * 1000 : fallbackMs);

export const backendLinkMachine = setup({
  types: {
    context: {} as BackendLinkContext,
    events: {} as BackendLinkEvent,
    input: {} as BackendLinkInput,
  },
  actions: {
    /** Opens the WebSocket; answered by SOCKET.OPENED or SOCKET.FAILED. */
    openSocket: () => {},
    /** Closes the WebSocket (STOP). */
    closeSocket: () => {},
    /** Sends BootNotification; answered by a BOOT.* event. */
    sendBootNotification: () => {},
    sendHeartbeat: () => {},
    /** Accepted: replay the queue, send the status, answer the CSMS. */
    online: () => {},
    offline: () => {},
    countAttempt: assign({ attempts: ({ context }) => context.attempts + 1 }),
    resetAttempts: assign({ attempts: 0 }),
    assignBootRetry: assign({ bootRetryMs: ({ event }) => intervalOf(event, BOOT_RETRY_MS) }),
    assignHeartbeat: assign({
      heartbeatMs: ({ context, event }) => (event.type === 'HEARTBEAT.INTERVAL' ? event.seconds * 1000 : intervalOf(event, context.heartbeatMs)),
    }),
  },
  delays: {
    backoff: ({ context }) => backoffMs(context.attempts),
    bootRetry: ({ context }) => context.bootRetryMs,
    heartbeat: ({ context }) => context.heartbeatMs,
  },
}).createMachine({
  id: 'backendLink',
  context: ({ input }) => ({ attempts: 0, bootRetryMs: BOOT_RETRY_MS, heartbeatMs: input.heartbeatMs }),
  initial: 'disconnected',
  on: {
    STOP: { target: '.disconnected', actions: 'closeSocket' },
    'HEARTBEAT.INTERVAL': { actions: 'assignHeartbeat' },
  },
  states: {
    disconnected: {
      on: { START: 'connecting' },
    },
    connecting: {
      entry: 'openSocket',
      on: {
        'SOCKET.OPENED': 'connected',
        'SOCKET.FAILED': { target: 'backoff', actions: 'countAttempt' },
      },
    },
    /** Waiting before the next connection attempt. */
    backoff: {
      after: { backoff: 'connecting' },
    },
    connected: {
      initial: 'booting',
      on: {
        'SOCKET.CLOSED': { target: 'backoff', actions: 'countAttempt' },
      },
      states: {
        booting: {
          entry: 'sendBootNotification',
          on: {
            'BOOT.ACCEPTED': { target: 'accepted', actions: ['resetAttempts', 'assignHeartbeat'] },
            'BOOT.PENDING': { target: 'pending', actions: 'assignBootRetry' },
            'BOOT.REJECTED': { target: 'rejected', actions: 'assignBootRetry' },
            'BOOT.FAILED': { target: 'rejected', actions: 'assignBootRetry' },
          },
        },
        pending: {
          after: { bootRetry: 'booting' },
          on: { 'BOOT.TRIGGERED': 'booting' },
        },
        rejected: {
          after: { bootRetry: 'booting' },
        },
        accepted: {
          entry: 'online',
          exit: 'offline',
          initial: 'beating',
          on: {
            'HEARTBEAT.INTERVAL': { target: '.beating', actions: 'assignHeartbeat' },
          },
          states: {
            beating: {
              after: { heartbeat: { target: 'beating', reenter: true, actions: 'sendHeartbeat' } },
            },
          },
        },
      },
    },
  },
});

export type BackendLinkSnapshot = SnapshotFrom<typeof backendLinkMachine>;
