import { gzipSync } from 'node:zlib';
import { desc, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { events as eventsTable } from '../../db/schema.js';
import { migrationTags } from '../../db/tables.js';
import type { Metrics } from '../metrics.js';
import { computedValues, FIELDS, type SettingKey, type Settings } from '../settings/index.js';
import type { RecentLog } from './recent-log.js';

/**
 * The diagnostics bundle (docs/field-service.md#diagnostics): what a service technician needs to see why a charger
 * misbehaves, in one file, with no secret in it: write-only settings (passwords, tokens) only say whether they are
 * set, accounts and sessions are not in it at all, and the log and the event log hold none by design.
 */

export const DIAGNOSTICS_FORMAT = 'charge-controller-diagnostics';
export const DIAGNOSTICS_FORMAT_VERSION = 1;
/** The newest events the bundle holds. */
export const DIAGNOSTICS_EVENTS = 2000;
/** The last safety reactions of the charge-point core the bundle holds. */
export const CORE_REACTIONS_KEPT = 100;

/** A time range (UTC ms) of log lines and events to include (OCPP GetDiagnostics' startTime/stopTime). */
export interface DiagnosticsRange {
  from?: number;
  to?: number;
}

export interface DiagnosticsDeps {
  database: Database;
  settings: Settings;
  metrics: Metrics;
  log: RecentLog;
  now: () => number;
}

export function createDiagnostics({ database, settings, metrics, log, now }: DiagnosticsDeps) {
  const reactions: Array<{ at: string; reaction: string; ms: number }> = [];
  const inRange = (at: number, { from, to }: DiagnosticsRange) => (from === undefined || at >= from) && (to === undefined || at <= to);

  return {
    /** A safety reaction of the charge-point core (how long it took), as it is reported. */
    reaction(reaction: string, seconds: number): void {
      reactions.push({ at: new Date(now()).toISOString(), reaction, ms: Math.round(seconds * 10_000) / 10 });
      if (reactions.length > CORE_REACTIONS_KEPT) reactions.shift();
    },

    /** The bundle (gzip-compressed JSON) and its file name. */
    async bundle(range: DiagnosticsRange = {}): Promise<{ bytes: Buffer; fileName: string }> {
      const computed = computedValues(now);
      const createdAt = new Date(now()).toISOString();
      const integrity = await database.db.all<{ integrity_check: string }>(sql`PRAGMA integrity_check`);
      const eventRows = await database.db.select().from(eventsTable).orderBy(desc(eventsTable.id)).limit(DIAGNOSTICS_EVENTS);
      const tags = await migrationTags();
      const logLines = log.lines().filter((line) => {
        const time = /"time":(\d+)/.exec(line);
        return !time || inRange(Number(time[1]), range);
      });
      const bundle = {
        format: DIAGNOSTICS_FORMAT,
        version: DIAGNOSTICS_FORMAT_VERSION,
        createdAt,
        range: {
          from: range.from === undefined ? null : new Date(range.from).toISOString(),
          to: range.to === undefined ? null : new Date(range.to).toISOString(),
        },
        versions: {
          firmware: computed.FirmwareVersion_custom,
          serialNumber: computed.SerialNumber_custom,
          node: process.version,
          platform: `${process.platform} ${process.arch}`,
          databaseSchema: tags[tags.length - 1],
        },
        uptimeSeconds: Math.round(process.uptime()),
        databaseIntegrity: integrity.map((r) => r.integrity_check),
        settings: settingsWithoutSecrets(settings),
        coreReactions: [...reactions],
        metrics: await metrics.registry.metrics(),
        events: eventRows
          .filter((e) => inRange(e.at, range))
          .reverse()
          .map((e) => ({ id: e.id, at: new Date(e.at).toISOString(), kind: e.kind, ...(JSON.parse(e.data) as object) })),
        log: logLines,
      };
      const serial = computed.SerialNumber_custom.replace(/[^A-Za-z0-9_-]/g, '') || 'controller';
      return { bytes: gzipSync(JSON.stringify(bundle, null, 1)), fileName: `diagnostics-${serial}-${createdAt.replace(/[:.]/g, '-')}.json.gz` };
    },
  };
}

export type Diagnostics = ReturnType<typeof createDiagnostics>;

/** Every stored setting's value; a write-only one (a secret) only as whether it is set. */
function settingsWithoutSecrets(settings: Settings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of FIELDS) {
    if (field.mode !== 'rw') continue;
    const value = settings.get(key as SettingKey);
    out[key] = field.writeOnly ? { isSet: value !== '' } : value;
  }
  return out;
}
