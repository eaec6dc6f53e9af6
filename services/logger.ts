import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/**
 * The process logger: JSON lines on stdout, or pino-pretty for development. Secrets never reach it: request logs
 * carry method, path, status and duration only, and no code passes a password, token or session id (a test reads
 * the whole log to check). Stdout is written asynchronously: lines logged while a write is under way go out
 * together (one system call under load, no delay when idle), and pino flushes what is pending when the process exits.
 */
export async function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, destination?: NodeJS.WritableStream): Promise<Logger> {
  const options = { level: config.logLevel, base: undefined };
  if (destination) return pino(options, destination);
  if (config.logFormat === 'pretty') {
    const { default: pretty } = await import('pino-pretty');
    return pino(options, pretty({ sync: true }));
  }
  return pino(options, pino.destination({ dest: 1, sync: false }));
}
