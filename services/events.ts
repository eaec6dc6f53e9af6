import { and, asc, gte, lte, sql, type SQL } from 'drizzle-orm';
import * as v from 'valibot';
import { ROLES } from '../db/schema.js';
import { nextPageTurn, type Database } from '../db/client.js';
import { isStorageFull } from '../db/storage.js';
import { TAG_ACCEPTANCES, TAG_REFUSALS as CHARGE_CYCLE_REFUSALS } from '../machines/charge-cycle.js';
import { events as eventsTable } from '../db/schema.js';
import type { Logger } from './logger.js';
import type { TimeRange } from './transactions.js';

/**
 * The event log for people: what happened to the charger, in words, kept in the database as a bounded ring (the
 * newest EventLogSize events, none older than EventLogMaxAge days where that is set), readable through GET
 * /v1/events and written to the log as it happens. Secrets never appear: each kind has a fixed set of fields
 * (below), none of which is a password, token or session id.
 */

/** How many events the database keeps by default (EventLogSize; older ones go in the write that adds newer ones). */
export const EVENTS_KEPT = 10_000;
const DAY_MS = 86_400_000;

/** What the event log keeps (the settings EventLogSize and EventLogMaxAge, services/event-log-settings.ts). */
export interface EventRetention {
  /** The newest this many events. */
  kept: number;
  /** None older than this many days; 0: no age limit. */
  maxAgeDays: number;
}
/** Events waiting for the database beyond this (a database that does not answer) are dropped, and that is logged. */
export const MAX_PENDING_EVENTS = 1_000;
/** Events read and written out at a time by GET /v1/events (a few milliseconds each). */
export const EVENT_PAGE_ROWS = 500;

const text = v.string();
/**
 * Why a tag was refused: the charge cycle's reasons, `whitelist-off` (an unknown tag while FLLEnabled is off) and
 * `reserved` (another tag than the reservation's while one holds the connector).
 */
export const TAG_REFUSALS = [...CHARGE_CYCLE_REFUSALS, 'whitelist-off', 'reserved'] as const;
/** The states of the backend connection the OCPP client reports (EventLog.backend). */
export const BACKEND_STATES = ['connecting', 'connected', 'disconnected', 'refused'] as const;

/** Every kind of event and its fields: the single source of the API's answer, the database rows and the types. */
export const ControllerEventSchema = v.variant('kind', [
  v.object({ kind: v.literal('tag_accepted'), tagId: text, userId: v.optional(text), outcome: v.picklist(TAG_ACCEPTANCES) }),
  v.object({ kind: v.literal('tag_refused'), tagId: text, reason: v.picklist(TAG_REFUSALS) }),
  v.object({ kind: v.literal('tag_ignored'), tagId: text }),
  v.object({ kind: v.literal('transaction_started'), transactionId: text, tagId: v.optional(text), userId: v.optional(text) }),
  v.object({ kind: v.literal('transaction_stopped'), transactionId: text, reason: text, consumptionWh: v.number() }),
  v.object({ kind: v.literal('fault_raised'), code: text, severity: v.picklist(['ERROR', 'WARNING']) }),
  v.object({ kind: v.literal('fault_cleared'), code: text, severity: v.picklist(['ERROR', 'WARNING']) }),
  v.object({ kind: v.literal('settings_changed'), keys: v.array(text), username: text }),
  v.object({ kind: v.literal('login'), username: text, address: text }),
  v.object({ kind: v.literal('logout'), username: text }),
  v.object({ kind: v.literal('login_refused'), address: text }),
  v.object({ kind: v.literal('login_throttled'), address: text, scope: v.picklist(['address', 'all']) }),
  // Audit: who (an account, or `shell:<user>` for `npm run accounts`) and from where (client address, or `shell`).
  v.object({ kind: v.literal('account_created'), username: text, role: v.picklist(ROLES), by: text, address: text }),
  v.object({ kind: v.literal('account_role_changed'), username: text, role: v.picklist(ROLES), previousRole: v.picklist(ROLES), by: text, address: text }),
  v.object({ kind: v.literal('account_password_reset'), username: text, by: text, address: text }),
  v.object({ kind: v.literal('account_removed'), username: text, by: text, address: text }),
  v.object({ kind: v.literal('session_ended'), username: text, reason: v.picklist(['account_changed', 'wrong_current_password']) }),
  v.object({ kind: v.literal('restart'), by: text, address: text, transactionEnded: v.boolean() }),
  // Field service (docs/field-service.md): who took or restored a backup, who reset the controller.
  v.object({ kind: v.literal('backup_downloaded'), by: text, address: text }),
  v.object({
    kind: v.literal('backup_restored'),
    by: text,
    address: text,
    backupCreatedAt: text,
    keptNetwork: v.boolean(),
    keptIdentity: v.boolean(),
  }),
  v.object({ kind: v.literal('factory_reset'), by: text, address: text }),
  v.object({
    kind: v.literal('charge_control'),
    action: v.picklist(['stop', 'pause', 'resume', 'current']),
    currentA: v.optional(v.nullable(v.number())),
    by: text,
    address: text,
  }),
  v.object({ kind: v.literal('nfc_link_up') }),
  v.object({ kind: v.literal('nfc_link_down') }),
  v.object({ kind: v.literal('backend'), state: v.picklist(BACKEND_STATES), url: v.optional(text), reason: v.optional(text) }),
  // The data directory's file system (services/storage-watch.ts): stored once there is room again.
  v.object({ kind: v.literal('storage_full') }),
  v.object({ kind: v.literal('storage_writable'), fullForS: v.number() }),
]);
export type ControllerEvent = v.InferOutput<typeof ControllerEventSchema>;
export type EventKind = ControllerEvent['kind'];

const ACCEPTED: Record<(typeof TAG_ACCEPTANCES)[number], string> = {
  authorized: 'it authorizes charging',
  stopped: 'it stops the transaction',
  cancelled: 'it withdraws its authorization',
};
const REFUSED: Record<(typeof TAG_REFUSALS)[number], string> = {
  unknown: 'it is not in the local whitelist',
  'whitelist-off': 'the local whitelist is off (FLLEnabled)',
  reserved: 'the connector is reserved for another tag (OCPP ReserveNow)',
  unavailable: 'charging is disabled',
  faulted: 'the charge point has a fault',
  stopping: 'the transaction is stopping',
};

/** The event in words (English, like the log). */
export function describeEvent(e: ControllerEvent): string {
  switch (e.kind) {
    case 'tag_accepted':
      return `Tag ${e.tagId} accepted: ${ACCEPTED[e.outcome]}`;
    case 'tag_refused':
      return `Tag ${e.tagId} refused: ${REFUSED[e.reason]}`;
    case 'tag_ignored':
      return `Tag ${e.tagId} ignored: a known tag other than the session tag was presented during a transaction`;
    case 'transaction_started':
      return `Transaction ${e.transactionId} started${e.tagId === undefined ? ' (free charging)' : ` by tag ${e.tagId}`}`;
    case 'transaction_stopped':
      return `Transaction ${e.transactionId} stopped (${e.reason}), ${e.consumptionWh} Wh`;
    case 'fault_raised':
      return `${e.severity === 'ERROR' ? 'Fault' : 'Warning'} ${e.code} raised`;
    case 'fault_cleared':
      return `${e.severity === 'ERROR' ? 'Fault' : 'Warning'} ${e.code} cleared`;
    case 'settings_changed':
      return `Settings changed by ${e.username}: ${e.keys.join(', ')}`;
    case 'login':
      return `${e.username} logged in from ${e.address}`;
    case 'logout':
      return `${e.username} logged out`;
    case 'login_refused':
      return `Login refused from ${e.address}: invalid credentials`;
    case 'login_throttled':
      return e.scope === 'address'
        ? `Logins from ${e.address} refused for up to a minute: too many failures`
        : `Logins from every address refused for up to a minute: too many failures (the last from ${e.address})`;
    case 'account_created':
      return `Account ${e.username} (${e.role}) created by ${e.by} from ${e.address}`;
    case 'account_role_changed':
      return `Account ${e.username} changed from ${e.previousRole} to ${e.role} by ${e.by} from ${e.address}`;
    case 'account_password_reset':
      return `Password of ${e.username} set by ${e.by} from ${e.address}`;
    case 'account_removed':
      return `Account ${e.username} removed by ${e.by} from ${e.address}`;
    case 'session_ended':
      return e.reason === 'account_changed'
        ? `Session of ${e.username} ended: its account was changed or removed`
        : `Session of ${e.username} ended: a wrong current password was given`;
    case 'restart':
      return `Restart asked by ${e.by} from ${e.address}${e.transactionEnded ? ' (confirmed: it ends the running transaction)' : ''}`;
    case 'backup_downloaded':
      return `Backup downloaded by ${e.by} from ${e.address}`;
    case 'backup_restored':
      return (
        `Backup of ${e.backupCreatedAt} restored by ${e.by} from ${e.address}` +
        `${e.keptNetwork ? ', network settings kept' : ''}${e.keptIdentity ? ', identity kept' : ''}`
      );
    case 'factory_reset':
      return `Factory reset by ${e.by} from ${e.address}: every setting, account and record erased`;
    case 'charge_control':
      return e.action === 'current'
        ? `Current of the running charge ${e.currentA == null ? 'freed' : `set to ${e.currentA} A`} by ${e.by} from ${e.address}`
        : `Running charge: ${e.action} by ${e.by} from ${e.address}`;
    case 'nfc_link_up':
      return 'NFC link up: a phone is connected';
    case 'nfc_link_down':
      return 'NFC link down';
    case 'backend':
      return `Backend ${e.state}${e.url ? ` (${e.url})` : ''}${e.reason ? `: ${e.reason}` : ''}`;
    case 'storage_full':
      return (
        "The data directory's file system is full: API writes are refused (507) and change nothing; " +
        'charging goes on, and transactions are stored when there is room again'
      );
    case 'storage_writable':
      return `The data directory's file system has room again after ${e.fullForS} s full: what waited is stored`;
  }
}

/** Kinds logged above info: a person should look at them (api-overview.md, Sessions: reaching a limit is a warning). */
const WARNING_KINDS: ReadonlySet<EventKind> = new Set(['login_throttled', 'storage_full', 'storage_writable']);

/** A URL as events show it: scheme, host and path, never a user name, password or query (tokens). */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

/** An event as GET /v1/events answers it. */
export type EventView = ControllerEvent & { id: number; at: string; message: string };

export interface EventLog {
  /** Records an event now (or at `at`, ms): logged at once, stored by the database's write queue. Never throws. */
  record(event: ControllerEvent, at?: number): void;
  /**
   * The backend connection changed (for the OCPP client): `url` is shown without credentials or query; `reason` is
   * a short text for people (never a secret).
   */
  backend(state: (typeof BACKEND_STATES)[number], details?: { url?: string; reason?: string }): void;
  /** The events in a time range (inclusive), oldest first. */
  /**
   * The events of the range, oldest first, as JSON: a page at a time, each the JSON texts of up to `pageRows` events
   * (EventView) joined by commas. The event loop turns between pages.
   */
  pages(range: TimeRange, pageRows?: number): AsyncGenerator<string>;
  /** Resolves once every event recorded so far is stored (or failed). */
  settled(): Promise<void>;
  /** When events of `kind` happened from `from` (ms) on, oldest first: stored ones (any process's) and waiting ones. */
  times(kind: EventKind, from: number): Promise<number[]>;
  /**
   * What to keep from now on (read at every write; EVENTS_KEPT and no age limit until then). What is beyond it is
   * deleted at once, then in every write that adds events: a log that nothing adds to is not written (SD card wear).
   */
  retain(retention: () => EventRetention): void;
}

type Row = { at: number; kind: string; data: string };

/**
 * The event log on `database`. Events are written through the database's one write queue (db/client.ts): each write
 * takes every event recorded until it starts, in one transaction with the deletion of those beyond EVENTS_KEPT, so a
 * burst costs one commit and no completed write can be lost. Nothing here waits for the write.
 */
export function createEventLog({ database, now, logger }: { database: Database; now: () => number; logger: Logger }): EventLog {
  let retention = (): EventRetention => ({ kept: EVENTS_KEPT, maxAgeDays: 0 });
  let pending: Row[] = [];
  /** A write is queued that has not taken its events yet. */
  let queued = false;
  let last: Promise<void> = Promise.resolve();
  let dropped = 0;

  const write = () => {
    queued = true;
    /** The events this write takes: back to the waiting ones when it fails, in its statements or at the commit. */
    let batch: Row[] = [];
    last = database
      .write(async (tx) => {
        queued = false; // events recorded from now on go in the next write
        batch = pending;
        pending = [];
        if (batch.length > 0) await tx.insert(eventsTable).values(batch);
        const { kept, maxAgeDays } = retention();
        await tx.run(sql`DELETE FROM events WHERE id <= (SELECT max(id) FROM events) - ${kept}`);
        if (maxAgeDays > 0) await tx.run(sql`DELETE FROM events WHERE at < ${now() - maxAgeDays * DAY_MS}`);
      })
      .then(
        () => {
          if (dropped > 0) logger.warn({ dropped }, `${dropped} events were dropped while the database did not take them`);
          dropped = 0;
        },
        (err: unknown) => {
          queued = false;
          const kept = [...batch, ...pending];
          dropped += Math.max(0, kept.length - MAX_PENDING_EVENTS);
          pending = kept.slice(-MAX_PENDING_EVENTS); // kept for the next write
          // A full disk is logged once, as the storage_full event (services/storage-watch.ts), not at every write.
          if (!isStorageFull(err)) logger.error({ err, waiting: pending.length }, 'events could not be stored; they are kept for the next write');
        },
      );
  };

  const log: EventLog = {
    record(event, at = now()) {
      const { kind, ...data } = event;
      logger[WARNING_KINDS.has(kind) ? 'warn' : 'info']({ event: kind, at: new Date(at).toISOString(), ...data }, describeEvent(event));
      if (pending.length >= MAX_PENDING_EVENTS) {
        pending.shift();
        dropped++;
      }
      pending.push({ at, kind, data: JSON.stringify(data) });
      if (!queued) write();
    },
    backend(state, details = {}) {
      const event: ControllerEvent = { kind: 'backend', state };
      if (details.url !== undefined) event.url = safeUrl(details.url);
      if (details.reason !== undefined) event.reason = details.reason.slice(0, 200);
      log.record(event);
    },
    async *pages(range, pageRows = EVENT_PAGE_ROWS) {
      const inRange: SQL[] = [];
      if (range.from !== undefined) inRange.push(gte(eventsTable.at, range.from));
      if (range.to !== undefined) inRange.push(lte(eventsTable.at, range.to));
      let after: { at: number; id: number } | undefined;
      for (;;) {
        const rows = await database.db
          .select()
          .from(eventsTable)
          .where(and(...inRange, after ? sql`(${eventsTable.at}, ${eventsTable.id}) > (${after.at}, ${after.id})` : undefined))
          .orderBy(asc(eventsTable.at), asc(eventsTable.id))
          .limit(pageRows);
        if (rows.length === 0) return;
        yield rows
          .map((row) => {
            const event = { kind: row.kind, ...(JSON.parse(row.data) as object) } as ControllerEvent;
            return JSON.stringify({ id: row.id, at: new Date(row.at).toISOString(), ...event, message: describeEvent(event) } satisfies EventView);
          })
          .join(',');
        if (rows.length < pageRows) return;
        const last = rows[rows.length - 1]!;
        after = { at: last.at, id: last.id };
        await nextPageTurn();
      }
    },
    async times(kind, from) {
      const rows = await database.db
        .select({ at: eventsTable.at })
        .from(eventsTable)
        .where(and(gte(eventsTable.at, from), sql`${eventsTable.kind} = ${kind}`))
        .orderBy(asc(eventsTable.at));
      const waiting = pending.filter((row) => row.kind === kind && row.at >= from).map((row) => row.at);
      return [...rows.map((row) => row.at), ...waiting].sort((a, b) => a - b);
    },
    async settled() {
      for (let current = last; ; current = last) {
        await current;
        if (current === last) return;
      }
    },
    retain(next) {
      retention = next;
      if (!queued) write();
    },
  };
  return log;
}
