import { asc, count, eq, inArray, sql } from 'drizzle-orm';
import { inChunks, type Database, type WriteTx } from '../db/client.js';
import { keyValues } from '../db/schema.js';
import { charCount, conflict, invalid, listIds, notFound } from './errors.js';

/** Limits of spec 2.12a / 8. */
export const KV_MAX_KEY_LENGTH = 256;
export const KV_MAX_VALUE_LENGTH = 1000;
export const KV_MAX_PAIRS = 1000;

export type Pairs = Record<string, string>;

/** Builds a pairs object; `Object.fromEntries` defines own properties, so a key `__proto__` stays a plain key. */
const toPairs = (rows: readonly { key: string; value: string }[]): Pairs => Object.fromEntries(rows.map((r) => [r.key, r.value]));

/**
 * Validates a request body as pairs: a non-empty JSON object of string values within the length and count limits.
 * Used for POST and PATCH alike: a key longer than the limit can never exist, so PATCH refuses it the same way.
 */
export function parsePairs(body: unknown): Pairs {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('The body must be a JSON object whose members are the keys and whose values are strings');
  }
  const entries = Object.entries(body);
  if (entries.length === 0) throw invalid('The body holds no key/value pairs');
  if (entries.length > KV_MAX_PAIRS) throw invalid(`At most ${KV_MAX_PAIRS} pairs are stored; the body holds ${entries.length}`);
  const problems: string[] = [];
  for (const [key, value] of entries) {
    const k = JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key);
    if (charCount(key) === 0) problems.push('a key is empty');
    else if (key === '.' || key === '..') problems.push(`key ${k} cannot be addressed in a URL path (/v1/map/{key})`);
    else if (charCount(key) > KV_MAX_KEY_LENGTH) problems.push(`key ${k} is longer than ${KV_MAX_KEY_LENGTH} characters`);
    if (typeof value !== 'string') problems.push(`the value of ${k} is not a string`);
    else if (charCount(value) > KV_MAX_VALUE_LENGTH) problems.push(`the value of ${k} is longer than ${KV_MAX_VALUE_LENGTH} characters`);
    if (problems.length >= 5) break;
  }
  if (problems.length > 0) throw invalid(`Invalid key/value pairs: ${problems.join('; ')}`);
  return Object.fromEntries(entries) as Pairs;
}

/** Rows written, or keys looked up, per statement: about 10 ms each at the largest keys and values. */
const CHUNK = 100;

async function presentKeys(tx: WriteTx, keys: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  await inChunks(keys, CHUNK, async (chunk) => {
    for (const r of await tx.select({ key: keyValues.key }).from(keyValues).where(inArray(keyValues.key, chunk))) found.add(r.key);
  });
  return found;
}

/** The generic key/value store: every POST and PATCH is one all-or-nothing write transaction. */
export function createKeyValueStore(database: Database) {
  const { db } = database;
  return {
    /** Every pair as the JSON text of one object, by key, written by SQLite (1,000 pairs of 1.3 KB in about 5 ms). */
    async allJson(): Promise<string> {
      const ordered = db.select({ key: keyValues.key, value: keyValues.value }).from(keyValues).orderBy(asc(keyValues.key)).as('ordered');
      const [row] = await db.select({ json: sql<string>`json_group_object(${ordered.key}, ${ordered.value})` }).from(ordered);
      return row?.json ?? '{}';
    },

    async get(key: string): Promise<Pairs> {
      const row = await db.query.keyValues.findFirst({ where: eq(keyValues.key, key) });
      if (!row) throw notFound(`Key ${JSON.stringify(key)} does not exist`);
      return toPairs([row]);
    },

    /** Adds new pairs: 409 when any key exists, 400 when the store would hold more than KV_MAX_PAIRS. */
    async add(pairs: Pairs): Promise<void> {
      const keys = Object.keys(pairs);
      await database.write(async (tx) => {
        const existing = await presentKeys(tx, keys);
        if (existing.size > 0) throw conflict(`Key ${listIds([...existing])} already exists; use PATCH to change its value`);
        const [{ stored } = { stored: 0 }] = await tx.select({ stored: count() }).from(keyValues);
        if (stored + keys.length > KV_MAX_PAIRS) {
          throw invalid(`The store holds at most ${KV_MAX_PAIRS} pairs: it has ${stored}, the request adds ${keys.length}`);
        }
        await inChunks(keys, CHUNK, (chunk) => tx.insert(keyValues).values(chunk.map((key) => ({ key, value: pairs[key]! }))));
      });
    },

    /** Changes values of existing keys: 404 when any key does not exist. */
    async update(pairs: Pairs): Promise<void> {
      const keys = Object.keys(pairs);
      await database.write(async (tx) => {
        const existing = await presentKeys(tx, keys);
        const missing = keys.filter((k) => !existing.has(k));
        if (missing.length > 0) throw notFound(`Key ${listIds(missing)} does not exist; use POST to add it`);
        // Every key exists (checked above): the upsert updates, a chunk of rows per statement.
        await inChunks(keys, CHUNK, (chunk) =>
          tx
            .insert(keyValues)
            .values(chunk.map((key) => ({ key, value: pairs[key]! })))
            .onConflictDoUpdate({ target: keyValues.key, set: { value: sql`excluded.value` } }),
        );
      });
    },

    async remove(key: string): Promise<void> {
      await database.write(async (tx) => {
        const deleted = await tx.delete(keyValues).where(eq(keyValues.key, key)).returning({ key: keyValues.key });
        if (deleted.length === 0) throw notFound(`Key ${JSON.stringify(key)} does not exist`);
      });
    },
  };
}

export type KeyValueStore = ReturnType<typeof createKeyValueStore>;
