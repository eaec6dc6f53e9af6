import { appendFileSync, closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Logger } from '../../logger.js';
import type { DiagnosticsSource } from '../context.js';
import type { QueuedSecurityEvent } from './security-events-queue.js';

/** The security log's file grows to this, then becomes the previous one (`.1`): at most twice this on disk. */
export const SECURITY_LOG_BYTES = 256 * 1024;

/**
 * The station's security log (2.0.1 N01 GetLog `SecurityLog`): every security event recorded, sent or not, one JSON
 * line each in the data directory (`ocpp-security-log.jsonl`, the previous file `ocpp-security-log.jsonl.1`), appended
 * and fsynced (events are rare). Bounded by SECURITY_LOG_BYTES per file. `bundle` is what GetLog uploads: the events
 * of a time range as gzipped JSON.
 */
export function openSecurityLog(dataDir: string, logger: Pick<Logger, 'error'>) {
  const file = join(dataDir, 'ocpp-security-log.jsonl');
  const previous = `${file}.1`;
  const read = (path: string): QueuedSecurityEvent[] => {
    try {
      return readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as QueuedSecurityEvent];
          } catch {
            return []; // a line cut by a power loss
          }
        });
    } catch {
      return [];
    }
  };

  // A line a power loss cut short is ended, so the next event starts a line of its own.
  try {
    const text = readFileSync(file, 'utf8');
    if (text.length > 0 && !text.endsWith('\n')) appendFileSync(file, '\n');
  } catch {
    // no log yet
  }

  /** Every event kept, oldest first. */
  const events = (): QueuedSecurityEvent[] => [...read(previous), ...read(file)];

  return {
    append(event: QueuedSecurityEvent): void {
      try {
        if ((statSync(file, { throwIfNoEntry: false })?.size ?? 0) >= SECURITY_LOG_BYTES) renameSync(file, previous);
        appendFileSync(file, `${JSON.stringify(event)}\n`, { mode: 0o600 });
        const fd = openSync(file, 'r');
        try {
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      } catch (err) {
        logger.error({ err }, 'OCPP: the security log could not be written');
      }
    },
    events,
    /** GetLog SecurityLog: the events of the range (by their timestamp), as a gzipped JSON file. */
    source(now: () => number): DiagnosticsSource {
      return {
        bundle: async ({ from, to }) => {
          const kept = events().filter((e) => {
            const at = Date.parse(e.timestamp);
            return (from === undefined || at >= from) && (to === undefined || at <= to);
          });
          const stamp = new Date(now()).toISOString().replace(/[:.]/g, '-');
          const body = JSON.stringify({ format: 'charge-controller-security-log', generatedAt: new Date(now()).toISOString(), events: kept });
          return { bytes: gzipSync(body), fileName: `security-log-${stamp}.json.gz` };
        },
      };
    },
  };
}

export type SecurityLog = ReturnType<typeof openSecurityLog>;
