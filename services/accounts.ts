import { createHmac, randomBytes } from 'node:crypto';
import { asc, count, eq, sql } from 'drizzle-orm';
import type { Database, WriteTx } from '../db/client.js';
import { accounts, ROLES, type Role } from '../db/schema.js';
import type { Account } from '../machines/session.js';
import { secretEquals } from '../machines/secrets.js';
import type { ControllerEvent, EventLog } from './events.js';
import { charCount, forbidden, invalid, notFound } from './errors.js';

export { ROLES, type Role };

/** The built-in account a fresh database gets (role operator). */
export const INITIAL_OPERATOR = 'operator';

/**
 * The lowest role that manages login accounts (`/v1/accounts`), each up to its own role: operator, so the one
 * account of a fresh controller can add a second one (a colleague, a user for the app) without the command line.
 */
export const ACCOUNT_ADMIN_ROLE: Role = 'operator';

/** Password length in characters, for every way of setting one. */
export const PASSWORD_LENGTH = { min: 8, max: 255 } as const;

const USERNAME_RE = /^[A-Za-z0-9._@-]{1,64}$/;
export const USERNAME_RULE =
  '1 to 64 characters: letters, digits, ".", "_", "-" and "@", not "." or ".." (a name is a path segment of /v1/accounts/{username})';
/** Whether `username` follows USERNAME_RULE: safe as one URL path segment, so the API can address its account. */
export const validUsername = (username: string) => USERNAME_RE.test(username) && username !== '.' && username !== '..';

/** The most login accounts a controller keeps (people who manage one charger; bounds the table and its listing). */
export const MAX_ACCOUNTS = 100;

export interface AccountSummary {
  username: string;
  role: Role;
  createdAt: Date;
}

/** Whether `role` is `min` or higher (user < operator < installer < manufacturer). */
export const roleAtLeast = (role: Role, min: Role) => ROLES.indexOf(role) >= ROLES.indexOf(min);

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

/** Throws a 400 naming the rule when `password` is not PASSWORD_LENGTH characters long. */
export function checkPassword(password: string): void {
  const n = charCount(password);
  if (n < PASSWORD_LENGTH.min || n > PASSWORD_LENGTH.max) {
    throw invalid(`The password must be ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters long`);
  }
}

/**
 * Who asks for a change: a logged-in account (the `/v1/accounts` extension; `address` is its client address, for the
 * event log) or the machine's owner at its shell (`npm run accounts`), who may set any role. The rules that keep the
 * controller manageable apply to both.
 */
export type AccountActor = { username: string; role: Role; address?: string } | 'owner';

/** Where account changes are recorded (the event log) and who the shell's owner is in those records. */
export interface AccountAudit {
  events: Pick<EventLog, 'record'>;
  /** The owner at the shell as the events name it (`npm run accounts`: `shell:<OS user>`). */
  owner?: string;
}

/** A change that hands out a password: the generated one is returned once, a chosen one never. */
export interface PasswordOutcome {
  account: AccountSummary;
  /** Present when the password was generated: shown once, never stored anywhere else. */
  generatedPassword?: string;
}

type Row = typeof accounts.$inferSelect;
const summary = (r: Row): AccountSummary => ({ username: r.username, role: r.role, createdAt: new Date(r.createdAt) });

/**
 * What an actor may do to accounts; every change checks these inside its write transaction:
 * - an account acts on accounts of its own role or lower, never above it, and gives no role above its own;
 * - it neither removes its own account nor changes its own role (it would pull the ground from under its session);
 * - the last account of the highest role present is neither removed nor lowered (nobody could manage the roles
 *   above it any more).
 */
function guard(actor: AccountActor, rows: Row[]) {
  const byName = new Map(rows.map((r) => [r.username, r] as const));
  const mayGive = (role: Role) => {
    if (actor !== 'owner' && !roleAtLeast(actor.role, role)) {
      throw forbidden(`Role ${actor.role} may not give the role ${role} (above its own)`);
    }
  };
  return {
    target(username: string): Row {
      const row = byName.get(username);
      if (!row) throw notFound(`No account ${JSON.stringify(username)}`);
      if (actor !== 'owner' && !roleAtLeast(actor.role, row.role)) {
        throw forbidden(`Account ${JSON.stringify(username)} has the role ${row.role}, above ${actor.role}`);
      }
      return row;
    },
    notSelf(username: string, what: string) {
      if (actor !== 'owner' && actor.username === username) {
        throw forbidden(`An account may not ${what} itself; log in with another account of role ${ACCOUNT_ADMIN_ROLE} or higher`);
      }
    },
    mayGive,
    /** Refuses to take the last account of the highest role present away from that role. */
    keepsHighest(row: Row, newRole: Role | null) {
      const highest = rows.reduce((top, r) => (ROLES.indexOf(r.role) > ROLES.indexOf(top) ? r.role : top), rows[0]!.role);
      if (row.role !== highest || newRole === highest) return;
      if (rows.filter((r) => r.role === highest).length === 1) {
        throw invalid(`${JSON.stringify(row.username)} is the last account of role ${highest}, the highest present; add another ${highest} first`);
      }
    },
  };
}

/**
 * A key of this process for account standings: a standing derived from a password must not be a plain hash of it
 * (the inspector and the heap are no place for one).
 */
const STANDING_KEY = randomBytes(32);

/** What an account's sessions depend on: its role, password and creation. Any change of these changes it. */
const standingOf = (r: Pick<Row, 'role' | 'password' | 'createdAt'>) =>
  createHmac('sha256', STANDING_KEY).update(`${r.role}\u0000${r.createdAt}\u0000${r.password}`).digest('base64url');

/** Login accounts (not the charging users of /v1/users): one piece of code for the API and the CLI. */
export function createAccounts(database: Database, now: () => number = Date.now, audit?: AccountAudit) {
  const all = (tx: WriteTx) => tx.select().from(accounts).orderBy(asc(accounts.username));
  const standingQuery = database.db
    .select({ role: accounts.role, password: accounts.password, createdAt: accounts.createdAt })
    .from(accounts)
    .where(eq(accounts.username, sql.placeholder('username')))
    .prepare();
  /** Records a committed change: who (an account, or the owner at the shell) and from where, never a password. */
  const record = (actor: AccountActor, event: DistributiveOmit<AccountEvent, 'by' | 'address'>) => {
    const by = actor === 'owner' ? { by: audit?.owner ?? 'shell', address: 'shell' } : { by: actor.username, address: actor.address ?? 'unknown' };
    audit?.events.record({ ...event, ...by } as AccountEvent);
  };
  /** Committed (or attempted) writes by this process: a session's cached account check is redone after one. */
  let writes = 0;
  const write = async <T>(change: (tx: WriteTx) => Promise<T>): Promise<T> => {
    try {
      return await database.write(change);
    } finally {
      writes++;
    }
  };
  const checkRoom = async (tx: WriteTx) => {
    const [row] = await tx.select({ n: count() }).from(accounts);
    if (row!.n >= MAX_ACCOUNTS) throw invalid(`There are ${MAX_ACCOUNTS} accounts, the most the controller keeps: remove one first`);
  };

  return {
    /** True while the account's password is one that was generated (the web interface asks for a new one). */
    async passwordOneTime(username: string): Promise<boolean> {
      const row = await database.db.query.accounts.findFirst({ where: eq(accounts.username, username), columns: { passwordOneTime: true } });
      return row?.passwordOneTime ?? false;
    },

    async find(username: string): Promise<(Account & { standing: string }) | null> {
      const row = await database.db.query.accounts.findFirst({ where: eq(accounts.username, username) });
      return row ? { username: row.username, password: row.password, role: row.role, standing: standingOf(row) } : null;
    },

    /**
     * The account's standing now (null: it does not exist): a session holds while it equals the standing at login.
     * One prepared single-row read by primary key; it sees changes made by any process on the database (the CLI).
     */
    async standing(username: string): Promise<string | null> {
      const [row] = await standingQuery.execute({ username });
      return row ? standingOf(row) : null;
    },

    /** How many writes this process made to the accounts: unchanged, no account changed here since it was read. */
    writes: (): number => writes,

    async list(): Promise<AccountSummary[]> {
      const rows = await database.db.select().from(accounts).orderBy(asc(accounts.username));
      return rows.map(summary);
    },

    /** Adds an account; without `password` one is generated and returned once. Existing name: 400. */
    async add(actor: AccountActor, username: string, role: Role, password?: string): Promise<PasswordOutcome> {
      if (!validUsername(username)) throw invalid(`The user name must be ${USERNAME_RULE}`);
      if (password !== undefined) checkPassword(password);
      const chosen = password ?? generatePassword();
      const outcome = await write(async (tx) => {
        const rows = await all(tx);
        guard(actor, rows).mayGive(role);
        if (rows.some((r) => r.username === username)) throw invalid(`The account ${JSON.stringify(username)} exists already`);
        await checkRoom(tx);
        const [row] = await tx
          .insert(accounts)
          .values({ username, role, password: chosen, createdAt: now(), passwordOneTime: password === undefined })
          .returning();
        return { account: summary(row!), ...(password === undefined ? { generatedPassword: chosen } : {}) };
      });
      record(actor, { kind: 'account_created', username, role });
      return outcome;
    },

    /** Gives an account another role (not above the actor's; not its own; never the last of the highest role). */
    async setRole(actor: AccountActor, username: string, role: Role): Promise<AccountSummary> {
      const { account, previous } = await write(async (tx) => {
        const rows = await all(tx);
        const rules = guard(actor, rows);
        const row = rules.target(username);
        rules.notSelf(username, 'change the role of');
        rules.mayGive(role);
        rules.keepsHighest(row, role);
        const [updated] = await tx.update(accounts).set({ role }).where(eq(accounts.username, username)).returning();
        return { account: summary(updated!), previous: row.role };
      });
      if (previous !== role) record(actor, { kind: 'account_role_changed', username, role, previousRole: previous });
      return account;
    },

    /**
     * Sets a new password (generated and returned once when `password` is left out). Another account's: role rules
     * as for every change. The actor's own (any role): only with its current password proven (`current`).
     */
    async resetPassword(actor: AccountActor, username: string, password?: string, current?: string): Promise<PasswordOutcome> {
      if (password !== undefined) checkPassword(password);
      const own = actor !== 'owner' && actor.username === username;
      if (own && current === undefined) throw invalid('Changing your own password needs your current password (currentPassword)');
      const chosen = password ?? generatePassword();
      const outcome = await write(async (tx) => {
        const rows = await all(tx);
        if (own) {
          const row = rows.find((r) => r.username === username);
          if (!row || !secretEquals(row.password, current!)) throw forbidden('The current password is wrong');
        } else guard(actor, rows).target(username);
        const [updated] = await tx
          .update(accounts)
          .set({ password: chosen, passwordOneTime: password === undefined })
          .where(eq(accounts.username, username))
          .returning();
        return { account: summary(updated!), ...(password === undefined ? { generatedPassword: chosen } : {}) };
      });
      record(actor, { kind: 'account_password_reset', username });
      return outcome;
    },

    /** Removes an account (not the actor's own, not the last of the highest role present). */
    async remove(actor: AccountActor, username: string): Promise<void> {
      await write(async (tx) => {
        const rows = await all(tx);
        const rules = guard(actor, rows);
        const row = rules.target(username);
        rules.notSelf(username, 'remove');
        rules.keepsHighest(row, null);
        await tx.delete(accounts).where(eq(accounts.username, username));
      });
      record(actor, { kind: 'account_removed', username });
    },

    /**
     * The CLI's `set`: adds the account, or sets role and password of an existing one (the owner may give any role;
     * the last account of the highest role present keeps it).
     */
    async set(username: string, role: Role, password: string): Promise<'added' | 'updated'> {
      checkPassword(password);
      const outcome = await write(async (tx) => {
        const rows = await all(tx);
        const existing = rows.find((r) => r.username === username);
        if (existing) {
          guard('owner', rows).keepsHighest(existing, role);
          await tx.update(accounts).set({ role, password, passwordOneTime: false }).where(eq(accounts.username, username));
          return { added: false, previousRole: existing.role };
        }
        if (!validUsername(username)) throw invalid(`The user name must be ${USERNAME_RULE}`);
        await checkRoom(tx);
        await tx.insert(accounts).values({ username, role, password, createdAt: now() });
        return { added: true, previousRole: role };
      });
      if (outcome.added) record('owner', { kind: 'account_created', username, role });
      else {
        if (outcome.previousRole !== role) record('owner', { kind: 'account_role_changed', username, role, previousRole: outcome.previousRole });
        record('owner', { kind: 'account_password_reset', username });
      }
      return outcome.added ? 'added' : 'updated';
    },

    /**
     * On a database without accounts, creates `operator` with `password`, or with a generated one that is
     * returned so the caller can show it once. Returns null when accounts already exist.
     */
    async ensureInitialOperator(password: string | undefined): Promise<{ password: string; generated: boolean } | null> {
      return write(async (tx) => {
        const any = await tx.select({ username: accounts.username }).from(accounts).limit(1);
        if (any.length > 0) return null;
        return { password: await addInitialOperator(tx, now(), password), generated: password === undefined };
      });
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;

/**
 * Adds the built-in `operator` account (role operator) with `password`, or a generated one; answers the password.
 * The first start calls it on a database without accounts, a factory reset in the write that empties the database.
 */
export async function addInitialOperator(tx: WriteTx, createdAt: number, password?: string): Promise<string> {
  const chosen = password ?? generatePassword();
  // A generated password was printed once on the console: the first login in the web interface replaces it.
  await tx.insert(accounts).values({ username: INITIAL_OPERATOR, role: 'operator', password: chosen, createdAt, passwordOneTime: password === undefined });
  return chosen;
}

type AccountEvent = Extract<ControllerEvent, { kind: `account_${string}` }>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
