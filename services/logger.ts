import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/**
 * The process logger: JSON lines on stdout, or pino-pretty for development. Secrets never reach it: request logs
 * carry method, path, status and duration only, and no code passes a password, token or session id (a test reads
 * the whole log to check). Stdout is written asynchronously and buffered (see below).
 */
/** Longest time a log line waits in the buffer. */
export const LOG_FLUSH_MS = 100;

export async function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, destination?: NodeJS.WritableStream): Promise<Logger> {
  const options = { level: config.logLevel, base: undefined };
  if (destination) return pino(options, destination);
  if (config.logFormat === 'pretty') {
    const { default: pretty } = await import('pino-pretty');
    return pino(options, pretty({ sync: true }));
  }
  // Lines are collected up to 4 KiB and written at most FLUSH_MS later: under load one write carries dozens of
  // lines (a write per line costs more than the line). pino writes what is pending when the process exits.
  const stdout = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => stdout.flush(), LOG_FLUSH_MS).unref();
  return pino(options, stdout);
}
