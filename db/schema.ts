import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

import { ROLES } from './roles.js';

export { ROLES, type Role } from './roles.js';

export const TAG_TYPES = ['RFID', 'EVCCID', 'NFC'] as const;
export const TAG_PRIORITIES = ['NORMAL', 'HIGH'] as const;

/**
 * Login accounts (web interface, app, NFC). The login protocol (spec 5 item 3: SHA-256 of password + one-time
 * token) obliges the controller to know the plain password, so it is stored as given; the data directory and the
 * database file are readable by the controller's own user only. It is never returned by the API nor logged.
 */
export const accounts = sqliteTable('accounts', {
  username: text('username').primaryKey(),
  password: text('password').notNull(),
  role: text('role', { enum: ROLES }).notNull(),
  createdAt: integer('created_at').notNull(),
  /** The password was generated (shown once, on the console or to whoever made it): the web interface asks for a new one. */
  passwordOneTime: integer('password_one_time', { mode: 'boolean' }).notNull().default(false),
});

/** Charging users (spec 2.11), referenced by whitelist entries and transactions. */
export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: integer('created_at').notNull(),
});

/**
 * The local whitelist (spec 2.12). Deleting a user keeps its entries and clears their `userid`. One card, one entry:
 * ids that differ only in the letter case of A–Z are the same tag (readers differ in how they print a UID), so the
 * unique index is on `lower(id)` (SQLite's lower() folds exactly A–Z), and every look-up compares that way.
 */
export const whitelist = sqliteTable(
  'whitelist',
  {
    id: text('id').primaryKey(),
    tagType: text('tag_type', { enum: TAG_TYPES }),
    number: integer('number'),
    name: text('name'),
    userId: text('user_id').references(() => users.id, { onDelete: 'set null' }),
    priority: text('priority', { enum: TAG_PRIORITIES }),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('whitelist_tag').on(sql`lower(${t.id})`)],
);

/**
 * Whitelist entries removed by migration 0003 because their id was another entry's but for letter case (before,
 * both were kept, and revoking one left the card working under the other). The entry added first was kept
 * (`keptId`); each removed one is kept here with its data, and the controller logs it once at start (`reportedAt`).
 */
export const whitelistRemovedDuplicates = sqliteTable('whitelist_removed_duplicates', {
  id: text('id').notNull(),
  keptId: text('kept_id').notNull(),
  tagType: text('tag_type'),
  number: integer('number'),
  name: text('name'),
  userId: text('user_id'),
  priority: text('priority'),
  createdAt: integer('created_at').notNull(),
  reportedAt: integer('reported_at'),
});

/** The generic key/value store (spec 2.12a, 4.6). */
export const keyValues = sqliteTable('key_values', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/**
 * Charging transactions. `endedAt` is null while the transaction is active; the active row is checkpointed
 * (`meterLastWh`, `maxPowerW`, `checkpointedAt`) so that a power loss loses no completed data. Times are UTC
 * milliseconds. Metering: `meterStartWh` is the first meter reading taken at or after the start (read at
 * `meterStartAt`; null while the meter has not answered since the start, the registers then 0) and `meterLastWh` the
 * last one counted (`meterLastAt`), so no energy from before the start is ever counted. The partial index on the
 * start time (and the rowid, as every SQLite index) serves the range queries and the paged list over completed
 * transactions, listed in the order they started, then in the order they were recorded.
 * `userId` has no foreign key: the history outlives the user.
 */
export const transactions = sqliteTable(
  'transactions',
  {
    id: text('id').primaryKey(),
    backendTransactionId: text('backend_transaction_id'),
    tagId: text('tag_id'),
    userId: text('user_id'),
    startedAt: integer('started_at').notNull(),
    endedAt: integer('ended_at'),
    meterStartWh: integer('meter_start_wh').notNull(),
    meterStartAt: integer('meter_start_at'),
    meterLastWh: integer('meter_last_wh').notNull(),
    meterLastAt: integer('meter_last_at'),
    maxPowerW: integer('max_power_w').notNull(),
    stopReason: text('stop_reason'),
    checkpointedAt: integer('checkpointed_at').notNull(),
  },
  (t) => [
    index('transactions_completed_by_start')
      .on(t.startedAt)
      .where(sql`ended_at IS NOT NULL`),
  ],
);

/**
 * The energy curve of a transaction (services/transaction-curve.ts): the energy delivered since its start at each
 * of its checkpoints (one every 10 s while it runs), written in the same write as the checkpoint. Bounded: at most
 * CURVE_POINTS a transaction (older points thinned), kept for the newest CURVES_KEPT transactions.
 */
export const transactionCurve = sqliteTable(
  'transaction_curve',
  {
    transactionId: text('transaction_id').notNull(),
    at: integer('at').notNull(),
    energyWh: integer('energy_wh').notNull(),
  },
  (t) => [primaryKey({ columns: [t.transactionId, t.at] })],
);

/**
 * The completed transactions summed per UTC day of their start (day = floor(startedAt / 86 400 000)), with running
 * totals (that day and every day before it), kept in the same write as each completion: the summary of any range of
 * whole days is the difference of two running totals (two index lookups), whatever the history.
 */
export const transactionDays = sqliteTable('transaction_days', {
  day: integer('day').primaryKey(),
  count: integer('count').notNull(),
  durationMs: integer('duration_ms').notNull(),
  consumptionWh: integer('consumption_wh').notNull(),
  totalCount: integer('total_count').notNull().default(0),
  totalDurationMs: integer('total_duration_ms').notNull().default(0),
  totalConsumptionWh: integer('total_consumption_wh').notNull().default(0),
});

/**
 * Settings values that differ from their catalogue default (services/settings/catalogue.ts is the single source of
 * keys, types, defaults and roles). Values are JSON: a string, an integer (enums: the option's value) or three integers.
 */
export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/**
 * The OCPP offline queue (services/ocpp/outbox.ts): transaction-related messages to the central system, written
 * here before they are sent (a StartTransaction and StopTransaction in the same write as the transaction itself) and
 * deleted in the same write that records the central system's answer; sent in `seq` order. `transactionId` is the
 * local transaction's id: the central system's id is filled in when the message is sent (a StopTransaction waits for
 * its StartTransaction's answer).
 */
export const ocppQueue = sqliteTable('ocpp_queue', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  action: text('action', { enum: ['StartTransaction', 'StopTransaction', 'MeterValues', 'TransactionEvent'] }).notNull(),
  transactionId: text('transaction_id').notNull(),
  payload: text('payload').notNull(),
  attempts: integer('attempts').notNull().default(0),
  /** UTC ms before which the message is not sent again (after a refusal: TransactionMessageRetryInterval). */
  notBefore: integer('not_before').notNull().default(0),
  createdAt: integer('created_at').notNull(),
});

/** The OCPP local authorization list (SendLocalList), used while OCPPWLEnabled is on. Expiry in UTC ms. */
export const ocppLocalList = sqliteTable('ocpp_local_list', {
  idTag: text('id_tag').primaryKey(),
  status: text('status').notNull(),
  expiryDate: integer('expiry_date'),
  parentIdTag: text('parent_id_tag'),
});

/** The OCPP authorization cache: the central system's latest answer per tag (Authorize, Start/StopTransaction). */
export const ocppAuthCache = sqliteTable('ocpp_auth_cache', {
  idTag: text('id_tag').primaryKey(),
  status: text('status').notNull(),
  expiryDate: integer('expiry_date'),
  parentIdTag: text('parent_id_tag'),
  updatedAt: integer('updated_at').notNull(),
});

/** Charging profiles the central system installed (SetChargingProfile), as received (JSON). */
export const ocppChargingProfiles = sqliteTable('ocpp_charging_profiles', {
  id: integer('id').primaryKey(),
  connectorId: integer('connector_id').notNull(),
  purpose: text('purpose').notNull(),
  stackLevel: integer('stack_level').notNull(),
  /** TxProfile: the local transaction it belongs to (deleted with its end). */
  transactionId: text('transaction_id'),
  profile: text('profile').notNull(),
});

/** Small OCPP state that must survive a restart: the local list's version, a scheduled availability change. */
export const ocppState = sqliteTable('ocpp_state', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/**
 * The event log for people (services/events.ts): what happened to the charger, one row an event, a bounded ring
 * (the newest EVENTS_KEPT are kept; older rows are deleted in the write that adds new ones). `at` is UTC
 * milliseconds, `kind` the event's kind and `data` its details as a JSON object (never a secret). Listed by time,
 * then in the order recorded.
 */
export const events = sqliteTable(
  'events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: integer('at').notNull(),
    kind: text('kind').notNull(),
    data: text('data').notNull(),
  },
  (t) => [index('events_by_time').on(t.at)],
);

/**
 * Today's energy into the vehicle by origin (services/energy/today-store.ts): one row (`id` 1), the local day it
 * belongs to (YYYY-MM-DD in the controller's time zone) and the figures in Wh. Written on a transaction's end, at
 * most every few minutes while charging and at a day change while charging; read at start when it is the same day.
 */
export const energyToday = sqliteTable('energy_today', {
  id: integer('id').primaryKey(),
  day: text('day').notNull(),
  solarWh: real('solar_wh').notNull(),
  gridWh: real('grid_wh').notNull(),
  savedAt: integer('saved_at').notNull(),
});

/**
 * The energy into the vehicle by origin per local day (services/energy/today-store.ts writes it in the write that keeps
 * `energy_today`; services/energy-history.ts reads it): shown with the daily and monthly history, never billed.
 */
export const energyDays = sqliteTable('energy_days', {
  day: text('day').primaryKey(),
  solarWh: real('solar_wh').notNull(),
  gridWh: real('grid_wh').notNull(),
});
