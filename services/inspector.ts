import { randomBytes } from 'node:crypto';
import type { AnyActorRef, StateValue } from 'xstate';
import type { Role } from '../db/schema.js';
import { allowedCurrentA, chargeCycleMachine, stateMeta, type ChargeContext } from '../machines/charge-cycle.js';
import type { BackendLinkContext } from '../machines/backend-link.js';
import { backoffMs, type MqttContext } from '../machines/mqtt.js';
import type { PairingContext } from '../machines/pairing.js';
import type { SiteMembershipContext } from '../machines/site-membership.js';
import type { SolarContext } from '../machines/solar.js';
import { checkSession, SESSION_TIMEOUT_MS, type SessionContext, type SessionErrorCode, type SessionSnapshot } from '../machines/session.js';
import { transitionTable, triggerOf } from '../machines/transitions.js';
import { roleAtLeast } from './accounts.js';
import type { CoreState } from './core/protocol.js';
import { hmiState } from './core/hmi.js';
import { inspectRecord, systemIdOf, type InspectRecord } from './core/inspection.js';
import { chartedMachines, type ChartedMachine } from './machine-charts.js';

/**
 * The inspection hub behind the live inspector page (`/inspect`): fed with the inspection records of the actor
 * systems (the main thread's and the charge-point core's, each an ActorSource), it keeps the last events and tells
 * watchers what changed: each actor's active states, the context values that matter and the transitions just taken.
 * The machines know nothing of it.
 *
 * It listens to the sources only while someone watches: an inspection observer costs every actor event a few
 * microseconds and garbage (measured: ~3 µs per API call's ACTIVITY event even with an observer that does nothing),
 * which the request throughput and memory targets cannot spare when nobody looks; the core sends its records only
 * while asked to.
 *
 * Nothing secret leaves it: context is shown through an allow-list per actor (no login token, session id, proof or
 * password; the session shows user, role and expiry only), and events carry their type plus allow-listed fields.
 * Watching needs a session of role installer or higher; the page's EventSource cannot send the Authorization header,
 * so it redeems a short-lived, single-use ticket bound to the session and the client address.
 */

/** The lowest role that may watch (engineers: installer and manufacturer). */
export const INSPECTOR_ROLE: Role = 'installer';
/** A ticket is valid this long after it was issued (actor clock), and once. */
export const TICKET_TTL_MS = 30_000;
/** Events kept for a page that opens later. */
export const EVENTS_KEPT = 50;
const MAX_TICKETS = 16;

export const mayInspect = (role: Role) => roleAtLeast(role, INSPECTOR_ROLE);

/** One actor as the page shows it. */
export interface ActorView {
  systemId: string;
  status: string;
  /** Active state paths, compound ancestors included (`operative`, `operative.session`, …). */
  states: string[];
  /** The context values that matter, none of them secret. */
  context: Record<string, unknown>;
  /** SVG ids of the edges of the transitions of the latest step while watched (`transition-<n>`). */
  transitions: string[];
}

export interface EventView {
  seq: number;
  /** Actor clock milliseconds. */
  at: number;
  /** systemId of the actor that received it. */
  actor: string;
  /** Event type (`after <delay>` for a timer). */
  type: string;
  /** Allow-listed payload fields. */
  detail?: Record<string, unknown>;
}

/** The charge point at a glance, for the summary strip of the page. */
export interface ChargeSummary {
  /** The state in words (the status LEDs' names: Available, Charging, Paused by vehicle, Error, …). */
  state: string;
  systemState: string;
  ocppState: string;
  /** The CP level (A to F). */
  pilot: string;
  /** The current the PWM announces (A); null while it is off. */
  announcedA: number | null;
  contactorClosed: boolean;
  /** Power (kW) and energy (kWh) of the running transaction; null without one. */
  powerKW: number | null;
  energyKWh: number | null;
  /** The tag and user of the running transaction, else of an authorization held before plug-in. */
  tagId: string | null;
  userId: string | null;
  messages: Array<{ severity: string; errorCode: string; message: string }>;
}

/** The summary of the charge point's state as the core sent it last. */
export function chargeSummary(core: CoreState): ChargeSummary {
  const { system, transaction, chargeCycle } = core;
  const held = chargeCycle.context.authorization;
  // The state in words without `Reading card`, which only overlays it on the LEDs for a moment.
  const meta = stateMeta(chargeCycleMachine.resolveState({ value: chargeCycle.value, context: chargeCycle.context }));
  return {
    state: hmiState(meta, false),
    systemState: system.systemState,
    ocppState: system.ocppState,
    pilot: chargeCycle.context.pilot.toUpperCase(),
    announcedA: core.outputs.pwmA,
    contactorClosed: core.outputs.contactorClosed,
    powerKW: transaction ? transaction.power / 1000 : null,
    energyKWh: transaction ? transaction.consumption / 1000 : null,
    tagId: transaction?.tagId ?? held?.tagId ?? null,
    userId: transaction?.userId ?? held?.userId ?? null,
    messages: core.messages.map(({ severity, errorCode, message }) => ({ severity, errorCode, message })),
  };
}

export type InspectorMessage = { kind: 'actor'; actor: ActorView } | { kind: 'event'; event: EventView } | { kind: 'summary'; summary: ChargeSummary };

export interface InspectorView {
  at: number;
  actors: ActorView[];
  events: EventView[];
  /** The charge point at a glance; null until the core sent its state. */
  summary: ChargeSummary | null;
}

/** A watcher: receives every message, and `end` once when its session is no longer valid or the hub closes. */
export interface Watcher {
  send(message: InspectorMessage): void;
  end(reason: { code?: SessionErrorCode; message: string }): void;
}

/** What a redeemed ticket grants: watching for the session it was issued to. */
export type Grant = { ok: true; sessionId: string; address: string } | { ok: false; code: SessionErrorCode; message: string };

const iso = (ms: number) => new Date(ms).toISOString();

/** The context values shown per actor; an actor not listed shows none (safe by default). */
const CONTEXT_VIEWS: Record<string, (context: never, now: number) => Record<string, unknown>> = {
  chargeCycle: (c: ChargeContext) => ({
    pilot: c.pilot.toUpperCase(),
    allowedCurrentA: allowedCurrentA(c),
    maxCurrentA: c.settings.maxCurrentA,
    loadLimitA: c.loadLimitA,
    faults: c.faults,
    authorization: c.authorization && { tagId: c.authorization.tagId ?? null, userId: c.authorization.userId ?? null },
    freeCharging: c.settings.freeCharging,
    chargingEnabled: c.settings.chargingEnabled,
    ventilationAvailable: c.settings.ventilationAvailable,
    authTimeoutS: c.settings.authTimeoutMs / 1000,
  }),
  pairing: (c: PairingContext) => ({ tag: c.tag }),
  backendLink: (c: BackendLinkContext) => ({ failedAttempts: c.attempts, bootRetryS: c.bootRetryMs / 1000, heartbeatS: c.heartbeatMs / 1000 }),
  // No broker, user or password: the MQTT actor does not hold them (services/mqtt/ does).
  mqtt: (c: MqttContext) => ({
    failures: c.failures,
    nextAttemptAfterS: c.failures > 0 ? backoffMs(c.failures) / 1000 : null,
    discovery: c.discovery,
    meterIntervalS: c.intervalMs / 1000,
    meterPending: c.meterPending,
    loadLimitA: c.limitA,
    fallbackA: c.loadLimit.fallbackA,
    limitRefreshS: c.loadLimit.timeoutMs / 1000,
  }),
  solar: (c: SolarContext) => ({
    mode: c.mode,
    surplusW: c.surplusW === null ? null : Math.round(c.surplusW),
    startAboveW: c.minimumW + c.params.startMarginW,
    stopBelowW: c.minimumW - c.params.stopMarginW,
    minChargeS: c.params.minChargeMs / 1000,
    minPauseS: c.params.minPauseMs / 1000,
  }),
  siteMembership: (c: SiteMembershipContext) => ({
    connected: c.connected,
    peerSilent: c.peerSilent,
    joinS: c.params.joinMs / 1000,
    reserveS: c.params.reserveMs / 1000,
  }),
  session: (c: SessionContext) => ({
    user: c.session?.username ?? null,
    role: c.session?.role ?? null,
    sessionExpiresAt: c.session ? iso(c.session.lastActivityAt + SESSION_TIMEOUT_MS) : null,
    failedLogins: c.failures.length,
  }),
};

/** Payload fields shown per actor and event type; others show the type only. */
const EVENT_FIELDS: Record<string, Record<string, string[]>> = {
  chargeCycle: { PILOT: ['level'], TAG: ['id', 'known', 'userId'], FAULT: ['fault', 'active'], LOAD_LIMIT: ['amps'], SETTINGS: ['settings'], STOP: ['reason'] },
  pairing: { ENABLE: ['chargePointIdle'], TAG: ['id', 'tagType', 'known'] },
  backendLink: { 'BOOT.ACCEPTED': ['intervalS'], 'BOOT.PENDING': ['intervalS'], 'BOOT.REJECTED': ['intervalS'], 'HEARTBEAT.INTERVAL': ['seconds'] },
  mqtt: { CONFIGURE: ['connect'], DISCOVERY: ['on'], INTERVAL: ['ms'], LOAD_MANAGEMENT: ['on', 'timeoutMs', 'fallbackA'], LIMIT: ['amps'] },
  solar: { MODE: ['mode'] },
  siteMembership: { SITE: ['on'] },
};
/**
 * Events not listed: a call recording its time (one per API request), meter values, the solar surplus and the site's
 * peers (one a second each) would drown the rest; their effect shows in the actor's state and context.
 */
const QUIET_EVENTS = new Set(['ACTIVITY', 'METER', 'SURPLUS', 'PEERS']);

/** Active state paths of a state value, ancestors first. */
export function activePaths(value: StateValue, prefix = ''): string[] {
  if (typeof value === 'string') return [prefix + value];
  return Object.entries(value).flatMap(([key, child]) => [prefix + key, ...(child === undefined ? [] : activePaths(child, `${prefix}${key}.`))]);
}

function plain(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
  if (Array.isArray(value)) return value.map(plain);
  if (ArrayBuffer.isView(value)) return undefined;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
}

/** An actor's snapshot as far as the inspector reads it. */
export interface ActorSnapshot {
  status: string;
  value?: StateValue;
  context?: unknown;
}

/** A thread's actor system as the inspector sees it. */
export interface ActorSource {
  /** The snapshot of an actor of this system now, undefined when the system has none with that systemId. */
  snapshot(systemId: string): ActorSnapshot | undefined;
  /** Delivers the system's inspection records until the returned function is called. */
  inspect(observer: (record: InspectRecord) => void): () => void;
}

/** The main thread's actor system: the root actor `rootId` and the invoked actors whose systemId is `tracked`. */
export function localActorSource(root: AnyActorRef, rootId: string, tracked: ReadonlySet<string>): ActorSource {
  /** The actor of a systemId now (a restarted child is a new actor under the same systemId). */
  const actorOf = (systemId: string): AnyActorRef | undefined => (systemId === rootId ? root : (root.system.get(systemId) as AnyActorRef | undefined));
  return {
    snapshot: (systemId) => actorOf(systemId)?.getSnapshot() as ActorSnapshot | undefined,
    inspect(observer) {
      const sub = root.system.inspect((event) => {
        const record = inspectRecord(event, systemIdOf(event.actorRef as AnyActorRef, rootId, tracked));
        if (record) observer(record);
      });
      return () => sub.unsubscribe();
    },
  };
}

export function createInspector({
  now,
  charts = chartedMachines(),
  summary = () => undefined,
}: {
  now: () => number;
  charts?: ChartedMachine[];
  /** The charge point's summary now (from the core's latest state). */
  summary?: () => ChargeSummary | undefined;
}) {
  let sources: ActorSource[] = [];
  let listening: Array<() => void> | undefined;
  const snapshotOf = (systemId: string): ActorSnapshot | undefined => {
    for (const source of sources) {
      const snapshot = source.snapshot(systemId);
      if (snapshot) return snapshot;
    }
    return undefined;
  };
  /** Per actor, the SVG ids of its transitions that are drawn as edges (those with a target), by transition key. */
  const edgeIds = new Map(
    charts.map((c) => {
      const ids = new Map<string, string>();
      transitionTable(c.machine).forEach((row, i) => {
        if (row.targets.length && !ids.has(row.key)) ids.set(row.key, `transition-${i + 1}`);
      });
      return [c.systemId, ids] as const;
    }),
  );
  /** Per actor, the edges of its latest step that took one (a step: an event and the microsteps it caused). */
  const lastTransitions = new Map<string, string[]>();
  /** Per actor, the edges taken so far in the step under way. */
  const stepping = new Map<string, string[]>();
  let summaryDirty = false;
  const events: EventView[] = [];
  let seq = 0;
  const watchers = new Map<Watcher, { sessionId: string; address: string }>();
  const tickets = new Map<string, { sessionId: string; address: string; expiresAt: number }>();
  const dirty = new Set<string>();
  let pending: InspectorMessage[] = [];
  let flushScheduled = false;

  const actorView = (systemId: string): ActorView | undefined => {
    const snapshot = snapshotOf(systemId);
    if (!snapshot) return undefined;
    const contextView = CONTEXT_VIEWS[systemId];
    return {
      systemId,
      status: snapshot.status,
      states: snapshot.value === undefined ? [] : activePaths(snapshot.value),
      context: contextView && snapshot.context ? (plain(contextView(snapshot.context as never, now())) as Record<string, unknown>) : {},
      transitions: lastTransitions.get(systemId) ?? [],
    };
  };

  const flush = () => {
    flushScheduled = false;
    const messages = pending;
    pending = [];
    for (const systemId of dirty) {
      const actor = actorView(systemId);
      if (actor) messages.push({ kind: 'actor', actor });
    }
    dirty.clear();
    const now = summaryDirty ? summary() : undefined;
    if (now) messages.push({ kind: 'summary', summary: now });
    summaryDirty = false;
    for (const watcher of [...watchers.keys()]) for (const m of messages) watcher.send(m);
  };
  const schedule = () => {
    if (flushScheduled || watchers.size === 0) return;
    flushScheduled = true;
    setImmediate(flush);
  };

  /** Ends the watchers whose session is no longer valid (replaced, logged out, timed out, other address). */
  const checkWatchers = () => {
    const snapshot = snapshotOf('session') as SessionSnapshot | undefined;
    if (!snapshot) return;
    for (const [watcher, bound] of watchers) {
      const verdict = checkSession(snapshot, bound.sessionId, bound.address, now());
      if ('code' in verdict) end(watcher, { code: verdict.code, message: 'The session ended; log in again' });
    }
  };

  const unwatch = (watcher: Watcher): boolean => {
    if (!watchers.delete(watcher)) return false;
    if (watchers.size === 0) {
      listening?.forEach((stop) => stop());
      listening = undefined;
    }
    return true;
  };
  const end = (watcher: Watcher, reason: { code?: SessionErrorCode; message: string }) => {
    if (unwatch(watcher)) watcher.end(reason);
  };

  const record = (systemId: string, event: { type: string } & Record<string, unknown>) => {
    if (QUIET_EVENTS.has(event.type)) return;
    const view: EventView = { seq: ++seq, at: now(), actor: systemId, type: triggerOf(event.type) };
    const fields = EVENT_FIELDS[systemId]?.[event.type];
    if (fields) view.detail = plain(Object.fromEntries(fields.filter((f) => f in event).map((f) => [f, event[f]]))) as Record<string, unknown>;
    events.push(view);
    if (events.length > EVENTS_KEPT) events.shift();
    if (watchers.size > 0) {
      pending.push({ kind: 'event', event: view });
      schedule();
    }
  };

  const hub = {
    /** The actors shown, in order, with their machines (for the charts). */
    charts,

    /** The actor systems to show (the main thread's, the charge-point core's). */
    attach(...actorSources: ActorSource[]): void {
      sources = actorSources;
    },

    /** Takes one inspection record of a source (while someone watches). */
    observe(r: InspectRecord): void {
      const { systemId } = r;
      switch (r.kind) {
        case 'event':
          stepping.set(systemId, []);
          record(systemId, r.event);
          return;
        case 'microstep': {
          const ids = edgeIds.get(systemId);
          const taken = r.transitions.map((key) => ids?.get(key)).filter((id): id is string => id !== undefined);
          stepping.set(systemId, [...(stepping.get(systemId) ?? []), ...taken]);
          return;
        }
        case 'snapshot': {
          const step = stepping.get(systemId);
          if (step?.length) lastTransitions.set(systemId, [...new Set(step)]);
          stepping.delete(systemId);
          if (systemId === 'session') checkWatchers();
          if (watchers.size === 0) return;
          dirty.add(systemId);
          schedule();
          return;
        }
      }
    },

    /** The charge point's state changed (the core sent a new one): the summary follows. */
    summaryChanged(): void {
      if (watchers.size === 0) return;
      summaryDirty = true;
      schedule();
    },

    /** Every actor's current view and the last events. */
    view(): InspectorView {
      return {
        at: now(),
        actors: charts.map((c) => actorView(c.systemId)).filter((a): a is ActorView => a !== undefined),
        events: [...events],
        summary: summary() ?? null,
      };
    },

    /** A single-use ticket for the event stream, bound to a session and its client address, valid TICKET_TTL_MS. */
    issueTicket(sessionId: string, address: string): string {
      const at = now();
      for (const [t, v] of tickets) if (v.expiresAt <= at) tickets.delete(t);
      while (tickets.size >= MAX_TICKETS) tickets.delete(tickets.keys().next().value!);
      const ticket = randomBytes(16).toString('hex');
      tickets.set(ticket, { sessionId, address, expiresAt: at + TICKET_TTL_MS });
      return ticket;
    },

    /** Spends a ticket: a grant when it is known, unexpired, from the same address, and its session still valid. */
    redeemTicket(ticket: string, address: string): Grant {
      const entry = tickets.get(ticket);
      tickets.delete(ticket);
      if (!entry || entry.expiresAt <= now() || entry.address !== address) {
        return { ok: false, code: 1003, message: 'Unknown, spent or expired ticket: get a new one with POST /inspect/ticket' };
      }
      const session = snapshotOf('session') as SessionSnapshot | undefined;
      const verdict = session ? checkSession(session, entry.sessionId, address, now()) : ({ code: 1003 } as const);
      if ('code' in verdict) return { ok: false, code: verdict.code, message: 'The session of this ticket has ended; log in again' };
      return { ok: true, sessionId: entry.sessionId, address };
    },

    /** Starts sending a watcher every change, for as long as its session stays valid; returns the way to stop. */
    watch(watcher: Watcher, bound: { sessionId: string; address: string }): () => void {
      if (watchers.size === 0 && !listening) listening = sources.map((source) => source.inspect(hub.observe));
      watchers.set(watcher, bound);
      return () => void unwatch(watcher);
    },

    /** Whether the hub listens to the actor system now (only while someone watches). */
    listening(): boolean {
      return listening !== undefined;
    },

    /** How many watch now. */
    watching(): number {
      return watchers.size;
    },

    /** Ends every watcher (graceful shutdown), so open streams do not hold the server. */
    close(): void {
      for (const watcher of [...watchers.keys()]) end(watcher, { message: 'The controller is shutting down' });
      tickets.clear();
    },
  };
  return hub;
}

export type Inspector = ReturnType<typeof createInspector>;
