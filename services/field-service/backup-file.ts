import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import * as v from 'valibot';
import type { TableData } from '../../db/tables.js';
import { invalid } from '../errors.js';

/**
 * The backup file (docs/field-service.md#the-backup-file): gzip-compressed JSON holding every table of the
 * database as raw rows, the schema level they are at, and a SHA-256 of the tables. This module reads and writes the
 * file; services/field-service/backup.ts takes and restores it.
 */

/** What the file says it is. */
export const BACKUP_FORMAT = 'charge-controller-backup';
/** The version of the file's layout this firmware writes and the newest it reads. */
export const BACKUP_FORMAT_VERSION = 1;
/** The largest backup JSON a restore unpacks (a file that unpacks to more is refused: a zip bomb or not ours). */
export const MAX_BACKUP_JSON_BYTES = 64 * 1024 * 1024;

const Cell = v.union([v.string(), v.pipe(v.number(), v.finite()), v.null()]);
const Table = v.object({ columns: v.array(v.string()), rows: v.array(v.array(Cell)) });

/** The file's JSON (version 1). */
const BackupSchema = v.object({
  format: v.literal(BACKUP_FORMAT),
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  createdAt: v.pipe(v.string(), v.isoTimestamp()),
  firmware: v.string(),
  serialNumber: v.string(),
  schema: v.object({ migrations: v.pipe(v.number(), v.integer(), v.minValue(1)), latest: v.string() }),
  sha256: v.pipe(v.string(), v.hexadecimal(), v.length(64)),
  tables: v.record(v.string(), Table),
});
export type Backup = v.InferOutput<typeof BackupSchema>;

/** The SHA-256 (hex) of the tables' JSON text (JSON.stringify of the parsed text gives the text written back). */
export const tablesDigest = (tables: Record<string, TableData>) => createHash('sha256').update(JSON.stringify(tables)).digest('hex');

/** The file's bytes. */
export function writeBackup(meta: Omit<Backup, 'format' | 'version' | 'sha256' | 'tables'>, tables: Record<string, TableData>): Buffer {
  const backup: Backup = { format: BACKUP_FORMAT, version: BACKUP_FORMAT_VERSION, ...meta, sha256: tablesDigest(tables), tables };
  return gzipSync(JSON.stringify(backup));
}

/**
 * Reads a backup file: gzip, JSON, the layout, the format version (a newer one is refused), the checksum. Throws a
 * 400 saying what is wrong; the database is not touched here.
 */
export function readBackup(bytes: Uint8Array): Backup {
  let text: string;
  try {
    text = gunzipSync(bytes, { maxOutputLength: MAX_BACKUP_JSON_BYTES }).toString('utf8');
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || (err instanceof RangeError && /larger/.test(err.message)))
      throw invalid(`The backup file unpacks to more than ${MAX_BACKUP_JSON_BYTES / 1024 / 1024} MiB: it is not a backup of this controller`);
    throw invalid('The file is not a backup file, or it is damaged (its gzip data is invalid or cut short)');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid('The backup file is damaged: its content is not valid JSON');
  }
  const head = v.safeParse(v.object({ format: v.literal(BACKUP_FORMAT), version: v.number() }), json);
  if (!head.success) throw invalid(`The file is not a backup file of this controller (format ${JSON.stringify(BACKUP_FORMAT)} expected)`);
  if (head.output.version > BACKUP_FORMAT_VERSION) {
    throw invalid(
      `The backup file has format version ${head.output.version}, made by a newer firmware; ` +
        `this firmware reads up to version ${BACKUP_FORMAT_VERSION}: update the controller first`,
    );
  }
  const parsed = v.safeParse(BackupSchema, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = (issue.path ?? []).map((p) => String(p.key)).join('.');
    throw invalid(`The backup file is damaged: ${path ? `${path}: ` : ''}${issue.message}`);
  }
  const backup = parsed.output;
  if (tablesDigest((json as { tables: Record<string, TableData> }).tables) !== backup.sha256)
    throw invalid('The backup file is damaged: its checksum (sha256) does not match its tables');
  for (const [name, table] of Object.entries(backup.tables)) {
    if (table.rows.some((row) => row.length !== table.columns.length)) throw invalid(`The backup file is damaged: a row of ${name} does not match its columns`);
  }
  return backup;
}
