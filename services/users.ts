import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { users } from '../db/schema.js';
import { notFound } from './errors.js';

/** A charging user (spec 2.11). */
export interface User {
  userId: string;
  userName: string;
}

const toUser = (row: { id: string; name: string }): User => ({ userId: row.id, userName: row.name });

/** Charging users: UUIDs assigned here, names validated by the API (1..255 characters). */
export function createUsers(database: Database, now: () => number = Date.now) {
  const { db } = database;
  return {
    async list(): Promise<User[]> {
      const rows = await db
        .select()
        .from(users)
        .orderBy(sql`rowid`);
      return rows.map(toUser);
    },

    async get(userId: string): Promise<User> {
      const row = await db.query.users.findFirst({ where: eq(users.id, userId) });
      if (!row) throw notFound(`User ${userId} does not exist`);
      return toUser(row);
    },

    async create(userName: string): Promise<User> {
      const id = randomUUID();
      await database.write((tx) => tx.insert(users).values({ id, name: userName, createdAt: now() }));
      return { userId: id, userName };
    },

    async rename(userId: string, userName: string): Promise<void> {
      await database.write(async (tx) => {
        const updated = await tx.update(users).set({ name: userName }).where(eq(users.id, userId)).returning({ id: users.id });
        if (updated.length === 0) throw notFound(`User ${userId} does not exist`);
      });
    },

    /** Deletes the user; whitelist entries that named it keep their tag and lose the `userid`. */
    async remove(userId: string): Promise<void> {
      await database.write(async (tx) => {
        const deleted = await tx.delete(users).where(eq(users.id, userId)).returning({ id: users.id });
        if (deleted.length === 0) throw notFound(`User ${userId} does not exist`);
      });
    },
  };
}

export type Users = ReturnType<typeof createUsers>;
