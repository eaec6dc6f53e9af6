import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/**
 * The process logger: JSON lines on stdout, or pino-pretty for development. Secrets never reach it: request logs
 * carry method, path, status and duration only, and the redaction list below is a second line of defence.
 */
export async function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, destination?: NodeJS.WritableStream): Promise<Logger> {
  const options = {
    level: config.logLevel,
    base: undefined,
    redact: {
      paths: ['password', 'token', 'sessionId', 'authorization', '*.password', '*.token', '*.sessionId', '*.authorization'],
      censor: '[redacted]',
    },
  };
  if (config.logFormat === 'pretty' && !destination) {
    const { default: pretty } = await import('pino-pretty');
    return pino(options, pretty({ sync: true }));
  }
  return destination ? pino(options, destination) : pino(options);
}
