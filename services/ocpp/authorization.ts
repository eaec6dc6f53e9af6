import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { ocppAuthCache, ocppLocalList, ocppState } from '../../db/schema.js';

/** OCPP 1.6 IdTagInfo. */
export interface IdTagInfo {
  status: 'Accepted' | 'Blocked' | 'Expired' | 'Invalid' | 'ConcurrentTx';
  expiryDate?: string;
  parentIdTag?: string;
}

/** The local authorization list holds at most this many tags (LocalAuthListMaxLength, SendLocalListMaxLength). */
export const LOCAL_LIST_MAX = 1000;
/** The authorization cache keeps this many tags (the least recently answered go first). */
export const AUTH_CACHE_MAX = 1000;

type Entry = { status: string; expiryDate: number | null; parentIdTag: string | null };

const toRow = (info: IdTagInfo) => ({
  status: info.status,
  expiryDate: info.expiryDate ? Date.parse(info.expiryDate) : null,
  parentIdTag: info.parentIdTag ?? null,
});

/** Whether an entry authorizes now: Accepted and not expired. */
const valid = (entry: Entry | undefined, at: number) =>
  entry !== undefined && entry.status === 'Accepted' && (entry.expiryDate === null || entry.expiryDate > at);

export type SendLocalListStatus = 'Accepted' | 'Failed' | 'NotSupported' | 'VersionMismatch';

/**
 * The OCPP local authorization list (SendLocalList, GetLocalListVersion) and the authorization cache, both in the
 * database. Tag ids compare as the central system sent them (OCPP idTags are case-sensitive).
 */
export function createAuthorizationStore(database: Database, now: () => number) {
  const { db } = database;
  /** Entries in the local list as last counted (at start, after each SendLocalList): read synchronously. */
  let listEntries = 0;

  async function listVersion(): Promise<number> {
    const [row] = await db.select().from(ocppState).where(eq(ocppState.key, 'localListVersion'));
    return row ? Number(row.value) : 0;
  }

  return {
    listVersion,

    /** SendLocalList: Full replaces the list, Differential updates it (an entry without idTagInfo is removed). */
    async sendLocalList(request: {
      listVersion: number;
      updateType: 'Full' | 'Differential';
      localAuthorizationList?: { idTag: string; idTagInfo?: IdTagInfo }[];
    }): Promise<SendLocalListStatus> {
      const entries = request.localAuthorizationList ?? [];
      if (entries.length > LOCAL_LIST_MAX) return 'Failed';
      if (new Set(entries.map((e) => e.idTag)).size !== entries.length) return 'Failed';
      if (request.updateType === 'Full' && entries.some((e) => !e.idTagInfo)) return 'Failed';
      let counted = 0;
      return database
        .write(async (tx) => {
          const [current] = await tx.select().from(ocppState).where(eq(ocppState.key, 'localListVersion'));
          if (request.updateType === 'Differential' && request.listVersion <= Number(current?.value ?? 0)) return 'VersionMismatch';
          if (request.updateType === 'Full') await tx.delete(ocppLocalList);
          for (const e of entries) {
            if (!e.idTagInfo) await tx.delete(ocppLocalList).where(eq(ocppLocalList.idTag, e.idTag));
            else {
              const row = toRow(e.idTagInfo);
              await tx
                .insert(ocppLocalList)
                .values({ idTag: e.idTag, ...row })
                .onConflictDoUpdate({ target: ocppLocalList.idTag, set: row });
            }
          }
          const [count] = await tx.select({ n: sql<number>`count(*)` }).from(ocppLocalList);
          counted = Number(count?.n ?? 0);
          if (counted > LOCAL_LIST_MAX) throw Object.assign(new Error('local list full'), { full: true });
          const value = String(request.listVersion);
          await tx.insert(ocppState).values({ key: 'localListVersion', value }).onConflictDoUpdate({ target: ocppState.key, set: { value } });
          return 'Accepted' as const;
        })
        .then((status) => {
          if (status === 'Accepted') listEntries = counted;
          return status;
        })
        .catch((err: { full?: boolean }) => {
          if (err.full) return 'Failed' as const;
          throw err;
        });
    },

    /** Counts the local list's entries (once at start; SendLocalList keeps the count after). */
    async countEntries(): Promise<number> {
      const [count] = await db.select({ n: sql<number>`count(*)` }).from(ocppLocalList);
      listEntries = Number(count?.n ?? 0);
      return listEntries;
    },
    /** The local list's entries as last counted. */
    entries: () => listEntries,

    /** Whether the local list authorizes the tag now. */
    async inLocalList(idTag: string): Promise<boolean> {
      const [row] = await db.select().from(ocppLocalList).where(eq(ocppLocalList.idTag, idTag));
      return valid(row, now());
    },

    /** Whether the cache authorizes the tag now. */
    async inCache(idTag: string): Promise<boolean> {
      const [row] = await db.select().from(ocppAuthCache).where(eq(ocppAuthCache.idTag, idTag));
      return valid(row, now());
    },

    /** The parent idTag the local list, else the cache, gives a tag (reservations: a group of tags); undefined: none known. */
    async parentOf(idTag: string): Promise<string | undefined> {
      const [listed] = await db.select().from(ocppLocalList).where(eq(ocppLocalList.idTag, idTag));
      const [cached] = listed?.parentIdTag ? [] : await db.select().from(ocppAuthCache).where(eq(ocppAuthCache.idTag, idTag));
      return (listed?.parentIdTag ?? cached?.parentIdTag) || undefined;
    },

    /** Keeps the central system's answer for a tag (bounded: the oldest answers go first). */
    async remember(idTag: string, info: IdTagInfo): Promise<void> {
      const row = { ...toRow(info), updatedAt: now() };
      await database.write(async (tx) => {
        await tx
          .insert(ocppAuthCache)
          .values({ idTag, ...row })
          .onConflictDoUpdate({ target: ocppAuthCache.idTag, set: row });
        await tx.run(
          sql`DELETE FROM ${ocppAuthCache} WHERE id_tag NOT IN (SELECT id_tag FROM ${ocppAuthCache} ORDER BY updated_at DESC LIMIT ${AUTH_CACHE_MAX})`,
        );
      });
    },

    /** ClearCache. */
    async clearCache(): Promise<void> {
      await database.write((tx) => tx.delete(ocppAuthCache));
    },
  };
}

export type AuthorizationStore = ReturnType<typeof createAuthorizationStore>;
