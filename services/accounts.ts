import { randomBytes } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { accounts, ROLES, type Role } from '../db/schema.js';
import type { Account } from '../machines/session.js';

export { ROLES, type Role };

/** The built-in account a fresh database gets (role operator). */
export const INITIAL_OPERATOR = 'operator';

export interface AccountSummary {
  username: string;
  role: Role;
  createdAt: Date;
}

/** A random password: 16 characters from an unambiguous alphabet, from the CSPRNG. */
export function generatePassword(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const bytes = randomBytes(32);
  let out = '';
  for (const byte of bytes) {
    if (byte < alphabet.length * Math.floor(256 / alphabet.length)) out += alphabet[byte % alphabet.length];
    if (out.length === 16) return out;
  }
  return out + generatePassword().slice(out.length);
}

/** Login accounts (not the charging users of /v1/users). */
export function createAccounts(database: Database, now: () => number = Date.now) {
  return {
    async find(username: string): Promise<Account | null> {
      const row = await database.db.query.accounts.findFirst({ where: eq(accounts.username, username) });
      return row ? { username: row.username, password: row.password, role: row.role } : null;
    },

    async list(): Promise<AccountSummary[]> {
      const rows = await database.db.select().from(accounts).orderBy(asc(accounts.username));
      return rows.map((r) => ({ username: r.username, role: r.role, createdAt: new Date(r.createdAt) }));
    },

    /** Adds the account, or sets role and password of an existing one. */
    async set(username: string, role: Role, password: string): Promise<'added' | 'updated'> {
      return database.write(async (tx) => {
        const existing = await tx.select({ username: accounts.username }).from(accounts).where(eq(accounts.username, username));
        if (existing.length > 0) {
          await tx.update(accounts).set({ role, password }).where(eq(accounts.username, username));
          return 'updated';
        }
        await tx.insert(accounts).values({ username, role, password, createdAt: now() });
        return 'added';
      });
    },

    async remove(username: string): Promise<boolean> {
      return database.write(async (tx) => {
        const deleted = await tx.delete(accounts).where(eq(accounts.username, username)).returning();
        return deleted.length > 0;
      });
    },

    /**
     * On a database without accounts, creates `operator` with `password`, or with a generated one that is
     * returned so the caller can show it once. Returns null when accounts already exist.
     */
    async ensureInitialOperator(password: string | undefined): Promise<{ password: string; generated: boolean } | null> {
      return database.write(async (tx) => {
        const any = await tx.select({ username: accounts.username }).from(accounts).limit(1);
        if (any.length > 0) return null;
        const chosen = password ?? generatePassword();
        await tx.insert(accounts).values({ username: INITIAL_OPERATOR, role: 'operator', password: chosen, createdAt: now() });
        return { password: chosen, generated: password === undefined };
      });
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
