import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client/sqlite3';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/libsql/sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import Libsql from 'libsql';
import { createWriteQueue, GROUP_MAX_WORK_MS, GROUP_MAX_WRITES, openDatabase, STATEMENT_CACHE_SIZE, type Db } from '../../db/client.js';
import * as schema from '../../db/schema.js';

const { keyValues } = schema;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-write-queue-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A migrated database file (through openDatabase) and a second connection to it, as another process would see it. */
async function database() {
  const url = `file:${join(dir, 'controller.db')}`;
  await (await openDatabase(url)).close();
  const client = createClient({ url });
  const db: Db = drizzle(client, { schema });
  const other = createClient({ url });
  const stored = async () => Object.fromEntries((await other.execute('SELECT key, value FROM key_values ORDER BY key')).rows.map((r) => [r.key, r.value]));
  return { client, db, other, stored, close: () => (client.close(), other.close()) };
}

test('writes queued while one commits share the next commit; each is answered only once it is durable', async () => {
  const d = await database();
  let commits = 0;
  // A frozen clock: the group's work allowance is tested below; here a loaded machine must not split the group.
  const queue = createWriteQueue(d.db, { afterCommit: () => commits++, now: () => 0 });
  const answered: string[] = [];
  const writes = ['a', 'b', 'c', 'd', 'e'].map((key) =>
    queue
      .write((tx) => tx.insert(keyValues).values({ key, value: key.toUpperCase() }))
      .then(async () => {
        // Answered: a second connection already reads it.
        expect((await d.stored())[key]).toBe(key.toUpperCase());
        answered.push(key);
      }),
  );
  await Promise.all(writes);
  expect(commits).toBe(1);
  expect(answered).toEqual(['a', 'b', 'c', 'd', 'e']);
  expect(await d.stored()).toEqual({ a: 'A', b: 'B', c: 'C', d: 'D', e: 'E' });
  await queue.close();
  d.close();
});

test('a write that throws rolls back only its own changes and gets its own error; the others of its group commit and see the writes before them', async () => {
  const d = await database();
  let commits = 0;
  // A frozen clock: the group's work allowance is tested below; here a loaded machine must not split the group.
  const queue = createWriteQueue(d.db, { afterCommit: () => commits++, now: () => 0 });
  const first = queue.write((tx) => tx.insert(keyValues).values({ key: 'n', value: '1' }));
  const failing = queue.write(async (tx) => {
    await tx.update(keyValues).set({ value: 'half done' }).where(eq(keyValues.key, 'n'));
    await tx.insert(keyValues).values({ key: 'half', value: 'x' });
    throw new Error('refused half-way');
  });
  const third = queue.write(async (tx) => {
    const [row] = await tx.select().from(keyValues).where(eq(keyValues.key, 'n'));
    await tx
      .update(keyValues)
      .set({ value: String(Number(row!.value) + 1) })
      .where(eq(keyValues.key, 'n'));
    return row!.value;
  });
  await expect(first).resolves.toBeDefined();
  await expect(failing).rejects.toThrow('refused half-way');
  await expect(third).resolves.toBe('1'); // the failed write's change to n is not seen
  expect(commits).toBe(1);
  expect(await d.stored()).toEqual({ n: '2' });
  await queue.close();
  d.close();
});

test('when the commit itself fails, every write of the group gets an error and none is stored', async () => {
  const d = await database();
  // A deferred constraint is checked at COMMIT: the one way to make a commit fail without a broken disk.
  await d.client.execute('PRAGMA foreign_keys = ON');
  await d.client.execute('CREATE TABLE parent (id INTEGER PRIMARY KEY)');
  await d.client.execute('CREATE TABLE child (parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)');
  const queue = createWriteQueue(d.db);
  const innocent = queue.write((tx) => tx.insert(keyValues).values({ key: 'k', value: 'v' }));
  const orphan = queue.write((tx) => tx.run('INSERT INTO child (parent_id) VALUES (42)' as never));
  await expect(innocent).rejects.toThrow(/FOREIGN KEY/);
  await expect(orphan).rejects.toThrow(/FOREIGN KEY/);
  expect(await d.stored()).toEqual({});
  // The queue goes on: the next write commits.
  await queue.write((tx) => tx.insert(keyValues).values({ key: 'after', value: 'ok' }));
  expect(await d.stored()).toEqual({ after: 'ok' });
  await queue.close();
  d.close();
});

test(`a group takes at most ${GROUP_MAX_WRITES} writes, and no more once its work ran ${GROUP_MAX_WORK_MS} ms: the rest wait for the next commit`, async () => {
  const d = await database();
  let commits = 0;
  let clock = 0;
  const queue = createWriteQueue(d.db, { afterCommit: () => commits++, now: () => clock });
  const many = Array.from({ length: GROUP_MAX_WRITES + 1 }, (_, i) => queue.write((tx) => tx.insert(keyValues).values({ key: `k${i}`, value: 'v' })));
  await Promise.all(many);
  expect(commits).toBe(2);

  commits = 0;
  const slow = queue.write(async (tx) => {
    await tx.insert(keyValues).values({ key: 'slow', value: 'v' });
    clock += GROUP_MAX_WORK_MS; // this write's work took the group's whole allowance
  });
  const next = queue.write((tx) => tx.insert(keyValues).values({ key: 'next', value: 'v' }));
  await Promise.all([slow, next]);
  expect(commits).toBe(2);
  await queue.close();
  d.close();
});

test('close refuses new writes and waits for the queued ones', async () => {
  const url = `file:${join(dir, 'controller.db')}`;
  const database = await openDatabase(url);
  const queued = database.write((tx) => tx.insert(keyValues).values({ key: 'q', value: 'v' }));
  await database.close();
  await expect(queued).resolves.toBeDefined();
  await expect(database.write(async () => undefined)).rejects.toThrow('database is closed');
  const reopened = await openDatabase(url);
  expect(await reopened.db.select().from(keyValues)).toEqual([{ key: 'q', value: 'v' }]);
  await reopened.close();
});

test('each connection prepares a statement once and reuses it, also after it failed; the least recently used go first', async () => {
  await (await openDatabase(`file:${join(dir, 'controller.db')}`)).close(); // keeps prepared statements from now on
  const connection = new Libsql(join(dir, 'controller.db'));
  const insert = connection.prepare('INSERT INTO key_values (key, value) VALUES (?, ?)');
  expect(connection.prepare('INSERT INTO key_values (key, value) VALUES (?, ?)')).toBe(insert);
  insert.run(['a', 'A']);
  expect(() => insert.run(['a', 'again'])).toThrow(/UNIQUE/);
  insert.run(['b', 'B']);
  const select = connection.prepare('SELECT key, value FROM key_values WHERE key >= ? ORDER BY key');
  expect(select.all(['a'])).toEqual([
    { key: 'a', value: 'A' },
    { key: 'b', value: 'B' },
  ]);
  expect(select.all(['b'])).toEqual([{ key: 'b', value: 'B' }]);
  for (let i = 0; i < STATEMENT_CACHE_SIZE - 2; i++) connection.prepare(`SELECT ${i}`);
  connection.prepare('SELECT key, value FROM key_values WHERE key >= ? ORDER BY key'); // used again: kept longer
  connection.prepare('SELECT -1');
  expect(connection.prepare('SELECT key, value FROM key_values WHERE key >= ? ORDER BY key')).toBe(select);
  expect(connection.prepare('INSERT INTO key_values (key, value) VALUES (?, ?)')).not.toBe(insert);
  const other = new Libsql(join(dir, 'controller.db'));
  expect(other.prepare('SELECT 1')).not.toBe(connection.prepare('SELECT 1'));
  other.close();
  connection.close();
});
