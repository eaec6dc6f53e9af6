import { count, eq, inArray, isNull, sql } from 'drizzle-orm';
import { inChunks, type Database, type WriteTx } from '../db/client.js';
import { TAG_PRIORITIES, TAG_TYPES, users, whitelist, whitelistRemovedDuplicates } from '../db/schema.js';
import { RFID_UID } from '../drivers/rfid/uid.js';
import { invalid, listIds, notFound } from './errors.js';

export { RFID_UID, TAG_PRIORITIES, TAG_TYPES };

/** The rule for the id of an entry of tagType RFID (the form readers report; the simulator's reader refuses others). */
export const RFID_ID_RULE = 'id of an RFID tag must be its UID in hex: 4, 7 or 10 bytes (8, 14 or 20 hex digits)';
export const rfidIdValid = (id: string): boolean => RFID_UID.test(id);

/** Most entries the local whitelist holds (as OCPP's LocalAuthListMaxLength bounds a local list). */
export const WHITELIST_CAPACITY = 1000;
/** Entries written per statement, or per turn of the event loop when edited one by one (a few ms each). */
const CHUNK = 100;

/** A whitelist entry (spec 2.12); absent optional fields are left out. */
export interface WhitelistEntry {
  id: string;
  tagType?: (typeof TAG_TYPES)[number];
  number?: number;
  name?: string;
  userid?: string;
  priority?: (typeof TAG_PRIORITIES)[number];
}

type Row = typeof whitelist.$inferSelect;

function toEntry(row: Row): WhitelistEntry {
  const entry: WhitelistEntry = { id: row.id };
  if (row.tagType !== null) entry.tagType = row.tagType;
  if (row.number !== null) entry.number = row.number;
  if (row.name !== null) entry.name = row.name;
  if (row.userId !== null) entry.userid = row.userId;
  if (row.priority !== null) entry.priority = row.priority;
  return entry;
}

function toColumns(entry: WhitelistEntry) {
  return {
    tagType: entry.tagType ?? null,
    number: entry.number ?? null,
    name: entry.name ?? null,
    userId: entry.userid ?? null,
    priority: entry.priority ?? null,
  };
}

/**
 * A tag id's identity: ids that differ only in the letter case of A–Z are one tag (readers print UIDs in either
 * case). The same folding as SQLite's lower(), which the unique index `whitelist_tag` and every query use.
 */
export function tagKey(id: string): string {
  return id.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** The stored id's identity, as SQL: what the unique index is on. */
const storedKey = sql`lower(${whitelist.id})`;

/** One rule for every command: a request that names a tag twice (in any letter case) is refused (400). */
function refuseDuplicates(ids: readonly string[]): void {
  const seen = new Set<string>();
  const repeated = ids.filter((id) => (seen.has(tagKey(id)) ? true : (seen.add(tagKey(id)), false)));
  if (repeated.length > 0)
    throw invalid(`Tag id ${listIds([...new Set(repeated)])} appears more than once in the request (ids are compared without regard to letter case)`);
}

/** The stored ids of the entries the given ids name, by tag key. */
async function existingIds(tx: WriteTx, ids: readonly string[]): Promise<Map<string, string>> {
  const rows = await tx
    .select({ id: whitelist.id })
    .from(whitelist)
    .where(inArray(storedKey, ids.map(tagKey)));
  return new Map(rows.map((r) => [tagKey(r.id), r.id]));
}

async function requireUsers(tx: WriteTx, entries: readonly WhitelistEntry[]): Promise<void> {
  const wanted = [...new Set(entries.flatMap((e) => (e.userid ? [e.userid] : [])))];
  if (wanted.length === 0) return;
  const rows = await tx.select({ id: users.id }).from(users).where(inArray(users.id, wanted));
  const known = new Set(rows.map((r) => r.id));
  const missing = wanted.filter((id) => !known.has(id));
  if (missing.length > 0) throw notFound(`User ${listIds(missing)} does not exist; create the user first or leave out userid`);
}

/**
 * The local whitelist. Every command is one write transaction: it checks everything first and changes nothing
 * when any entry is refused.
 */
export function createWhitelist(database: Database, now: () => number = Date.now) {
  const { db } = database;
  return {
    /** The entry of a tag (read by the reader, or in pairing mode), whatever the letter case of its id. */
    async find(id: string): Promise<WhitelistEntry | undefined> {
      const [row] = await db
        .select()
        .from(whitelist)
        .where(eq(storedKey, tagKey(id)));
      return row ? toEntry(row) : undefined;
    },

    async list(): Promise<WhitelistEntry[]> {
      const rows = await db
        .select()
        .from(whitelist)
        .orderBy(sql`rowid`);
      return rows.map(toEntry);
    },

    /** Adds new entries; an id already whitelisted is refused (400), as is going over WHITELIST_CAPACITY. */
    async add(entries: readonly WhitelistEntry[]): Promise<void> {
      const ids = entries.map((e) => e.id);
      refuseDuplicates(ids);
      await database.write(async (tx) => {
        const existing = await existingIds(tx, ids);
        if (existing.size > 0) {
          throw invalid(`Tag id ${listIds([...existing.values()])} is already whitelisted; use the command "edit" to change it`);
        }
        await requireUsers(tx, entries);
        const [{ total } = { total: 0 }] = await tx.select({ total: count() }).from(whitelist);
        if (total + entries.length > WHITELIST_CAPACITY) {
          throw invalid(`The whitelist holds at most ${WHITELIST_CAPACITY} entries: it has ${total}, the request adds ${entries.length}`);
        }
        const createdAt = now();
        await inChunks(entries, CHUNK, (chunk) => tx.insert(whitelist).values(chunk.map((e) => ({ id: e.id, ...toColumns(e), createdAt }))));
      });
    },

    /**
     * Replaces the data of existing entries (fields left out are cleared; the id keeps the letter case it was added
     * with); an unknown id is refused (404).
     */
    async edit(entries: readonly WhitelistEntry[]): Promise<void> {
      const ids = entries.map((e) => e.id);
      refuseDuplicates(ids);
      await database.write(async (tx) => {
        const existing = await existingIds(tx, ids);
        const missing = ids.filter((id) => !existing.has(tagKey(id)));
        if (missing.length > 0) throw notFound(`Tag id ${listIds(missing)} is not whitelisted; use the command "add"`);
        await requireUsers(tx, entries);
        await inChunks(entries, CHUNK, async (chunk) => {
          for (const entry of chunk)
            await tx
              .update(whitelist)
              .set(toColumns(entry))
              .where(eq(storedKey, tagKey(entry.id)));
        });
      });
    },

    async clear(): Promise<void> {
      await database.write((tx) => tx.delete(whitelist));
    },

    /** Deletes the entries; when any id is not whitelisted, nothing is deleted (404). */
    async remove(ids: readonly string[]): Promise<void> {
      refuseDuplicates(ids);
      await database.write(async (tx) => {
        const existing = await existingIds(tx, ids);
        const missing = ids.filter((id) => !existing.has(tagKey(id)));
        if (missing.length > 0) throw notFound(`Tag id ${listIds(missing)} is not whitelisted`);
        await tx.delete(whitelist).where(inArray(storedKey, ids.map(tagKey)));
      });
    },

    /**
     * The entries migration 0003 removed as duplicates of another entry's id but for letter case, not reported
     * yet; they count as reported from now on (the controller logs them at start).
     */
    async takeRemovedDuplicates(): Promise<{ id: string; keptId: string; userid: string | null; name: string | null }[]> {
      return database.write(async (tx) => {
        const table = whitelistRemovedDuplicates;
        const rows = await tx
          .select({ id: table.id, keptId: table.keptId, userid: table.userId, name: table.name })
          .from(table)
          .where(isNull(table.reportedAt));
        if (rows.length > 0) await tx.update(table).set({ reportedAt: now() }).where(isNull(table.reportedAt));
        return rows;
      });
    },
  };
}

export type Whitelist = ReturnType<typeof createWhitelist>;
