import { randomBytes } from 'node:crypto';
import { nextPageTurn, type Database } from '../../db/client.js';
import { clearTable, columnsOf, dataTables, insertRows, migrationTags, openStagingDatabase, readTable, type TableData } from '../../db/tables.js';
import { addInitialOperator } from '../accounts.js';
import { invalid } from '../errors.js';
import { NETWORK_SETTINGS } from '../network-settings.js';
import { computedValues } from '../settings/index.js';
import { readBackup, writeBackup, type Backup } from './backup-file.js';

/**
 * Backup, restore and factory reset of the whole database (docs/field-service.md). A restore first brings the file's
 * tables into a staging database at the file's schema level and migrates them forward as a start would, so a backup
 * of an older firmware is restored as that firmware's data migrated; only then does one write replace the live
 * tables. A damaged file, one of a newer firmware, or data the schema refuses changes nothing.
 */

/** The settings a restore can keep from the controller it runs on: how it reaches its network. */
export const NETWORK_KEYS: readonly string[] = Object.keys(NETWORK_SETTINGS);
/** The settings that make this charger itself to the central system and the broker (kept with `keepIdentity`). */
export const IDENTITY_KEYS: readonly string[] = ['OcppChargeBoxId', 'OcppPassword', 'MqttClientId', 'MqttBaseTopic'];
/**
 * Tables of the conversation with the central system under this charger's identity (local list, cache, profiles,
 * queued transaction messages): kept with `keepIdentity`, since the backup's were the other identity's.
 */
const isIdentityTable = (table: string) => table.startsWith('ocpp_');

export interface RestoreOptions {
  /** Keep this controller's network settings (LAN, GSM) instead of the backup's. */
  keepNetwork: boolean;
  /** Keep this controller's identity (charge box id and password, MQTT client id and base topic, OCPP tables). */
  keepIdentity: boolean;
}

export interface BackupDeps {
  database: Database;
  /** A file the restore's staging database may use (beside the live one: same disk, same permissions). */
  stagingFile: string;
  now: () => number;
}

export function createBackups({ database, stagingFile, now }: BackupDeps) {
  return {
    /** The backup file of the database now (one read transaction would hold the writer off: tables are read in turn). */
    async take(): Promise<{ bytes: Buffer; createdAt: string; serialNumber: string }> {
      const tags = await migrationTags();
      const tables: Record<string, TableData> = {};
      for (const table of await dataTables(database.db)) {
        tables[table] = await readTable(database.db, table);
        await nextPageTurn();
      }
      const { SerialNumber_custom: serialNumber, FirmwareVersion_custom: firmware } = computedValues(now);
      const createdAt = new Date(now()).toISOString();
      const bytes = writeBackup({ createdAt, firmware, serialNumber, schema: { migrations: tags.length, latest: tags[tags.length - 1]! } }, tables);
      return { bytes, createdAt, serialNumber };
    },

    /**
     * Checks the file and, when it holds, replaces every table in one write (all or nothing); throws a 400 naming
     * what is wrong otherwise. The caller restarts the controller after it, so everything is read afresh.
     */
    async restore(bytes: Uint8Array, options: RestoreOptions): Promise<Backup> {
      const backup = readBackup(bytes);
      const staged = await stage(backup);
      await database.write(async (tx) => {
        for (const table of await dataTables(tx)) {
          if (options.keepIdentity && isIdentityTable(table)) continue;
          const data = staged[table] ?? { columns: await columnsOf(tx, table), rows: [] };
          if (table === 'settings') {
            const kept = new Set([...(options.keepNetwork ? NETWORK_KEYS : []), ...(options.keepIdentity ? IDENTITY_KEYS : [])]);
            const own = (await readTable(tx, table)).rows.filter((row) => kept.has(String(row[data.columns.indexOf('key')])));
            const key = data.columns.indexOf('key');
            data.rows = [...data.rows.filter((row) => !kept.has(String(row[key]))), ...own];
          }
          await clearTable(tx, table);
          await insertRows(tx, table, data);
        }
      });
      return backup;
    },

    /**
     * Empties every table and adds the built-in operator with a new generated password, in one write, then deletes
     * the copies made before migrations; answers the password (to be shown once, as on the first start).
     */
    async factoryReset(): Promise<string> {
      const password = await database.write(async (tx) => {
        for (const table of await dataTables(tx)) await clearTable(tx, table);
        return addInitialOperator(tx, now());
      });
      await database.removePreMigrationCopies(); // they hold the data erased
      return password;
    },
  };

  /**
   * The backup's tables at the current schema: written into a staging database at the file's schema level (which
   * checks every table, column and constraint), migrated forward, read back.
   */
  async function stage(backup: Backup): Promise<Record<string, TableData>> {
    const tags = await migrationTags();
    const { migrations, latest } = backup.schema;
    if (migrations > tags.length) {
      throw invalid(
        `The backup is of a newer firmware (database schema ${latest}, ${migrations} migrations; ` +
          `this firmware has ${tags.length}): update the controller first`,
      );
    }
    if (tags[migrations - 1] !== latest) throw invalid(`The backup's database schema ${JSON.stringify(latest)} is not one of this firmware's`);
    // A distinct name per restore: two at once never share a staging file.
    const staging = await openStagingDatabase(`${stagingFile}.${randomBytes(4).toString('hex')}`, migrations);
    try {
      const expected = await dataTables(staging.db);
      const given = Object.keys(backup.tables);
      const missing = expected.filter((t) => !given.includes(t));
      const unknown = given.filter((t) => !expected.includes(t));
      if (missing.length || unknown.length) {
        throw invalid(`The backup file is damaged: ${[...missing.map((t) => `table ${t} missing`), ...unknown.map((t) => `unknown table ${t}`)].join(', ')}`);
      }
      for (const table of expected) {
        const data = backup.tables[table]!;
        const columns = await columnsOf(staging.db, table);
        const wrong = data.columns.filter((c) => !columns.includes(c));
        if (wrong.length || new Set(data.columns).size !== data.columns.length) {
          throw invalid(`The backup file is damaged: table ${table} has unknown or repeated columns (${wrong.join(', ')})`);
        }
        try {
          await insertRows(staging.db, table, data);
        } catch (err) {
          throw invalid(`The backup file is damaged: the rows of ${table} do not fit its schema (${(err as Error).message.split('\n')[0]})`);
        }
      }
      await staging.migrateForward();
      const tables: Record<string, TableData> = {};
      for (const table of await dataTables(staging.db)) tables[table] = await readTable(staging.db, table);
      return tables;
    } finally {
      await staging.discard();
    }
  }
}

export type Backups = ReturnType<typeof createBackups>;
