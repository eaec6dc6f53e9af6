import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/** Longest time a log line waits in the buffer. */
export const LOG_FLUSH_MS = 100;
/** Pending lines are written once they reach this many characters (or LOG_FLUSH_MS passed). */
export const WRITE_AT_CHARS = 4096;
/** Pending log text beyond this (a reader that stopped reading) is dropped, and the drop is reported once. */
export const MAX_PENDING_CHARS = 4 * 1024 * 1024;

/** What LogBuffer needs of stdout. */
export interface LogOutput {
  /** False when the stream queued the text and wants no more until 'drain'. */
  write(text: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/**
 * The log's buffer in front of stdout. Appending a line is an array push; a write to the stream carries every line
 * pending once they reach WRITE_AT_CHARS characters or LOG_FLUSH_MS passed, so under load one write carries dozens
 * of lines (a write per line costs more than the line). Writes never block the event loop: on a pipe, Node writes
 * without blocking and queues what the reader has not taken yet; while that queue drains, lines wait here, and
 * beyond MAX_PENDING_CHARS (a reader that stopped reading) they are dropped and the drop is reported once. What is
 * pending when the process exits is written then. When the stream fails (its reader has gone: EPIPE), lines are
 * dropped from then on; the controller goes on running.
 *
 * (pino's own destination, sonic-boom, measures the UTF-8 length of its whole pending text for every line and
 * hands each write to a thread; under load both cost more than formatting the line.)
 */
export class LogBuffer {
  #lines: string[] = [];
  #chars = 0;
  #draining = false;
  #dropped = 0;
  #failed = false;

  constructor(private readonly out: LogOutput) {
    out.on('error', () => {
      this.#failed = true;
      this.#lines = [];
      this.#chars = 0;
    });
  }

  write(line: string): boolean {
    if (this.#failed) return false;
    if (this.#chars + line.length > MAX_PENDING_CHARS) {
      this.#dropped++;
      return false;
    }
    this.#lines.push(line);
    this.#chars += line.length;
    if (this.#chars >= WRITE_AT_CHARS) this.writePending();
    return true;
  }

  /**
   * Writes every pending line (and a drop notice) in one write, unless the stream is draining (`atExit`: even then;
   * the stream queues it behind the rest).
   */
  writePending(atExit = false): void {
    if (this.#failed || (this.#draining && !atExit)) return;
    if (this.#dropped > 0) {
      this.#lines.push(`{"level":40,"time":${Date.now()},"dropped":${this.#dropped},"msg":"log lines dropped: stdout is not being read"}\n`);
      this.#dropped = 0;
    }
    if (this.#lines.length === 0) return;
    const text = this.#lines.length === 1 ? this.#lines[0]! : this.#lines.join('');
    this.#lines = [];
    this.#chars = 0;
    if (!this.out.write(text) && !atExit) {
      this.#draining = true;
      this.out.once('drain', () => {
        this.#draining = false;
        this.writePending();
      });
    }
  }
}

/**
 * The process logger: JSON lines on stdout, or pino-pretty for development. Secrets never reach it: request logs
 * carry method, path, status and duration only, and no code passes a password, token or session id (a test reads
 * the whole log to check). `destination` replaces stdout (tests).
 */
export async function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, destination?: NodeJS.WritableStream): Promise<Logger> {
  const options = { level: config.logLevel, base: undefined };
  if (destination) return pino(options, destination);
  if (config.logFormat === 'pretty') {
    const { default: pretty } = await import('pino-pretty');
    return pino(options, pretty({ sync: true }));
  }
  const buffer = new LogBuffer(process.stdout);
  setInterval(() => buffer.writePending(), LOG_FLUSH_MS).unref();
  process.once('exit', () => buffer.writePending(true));
  return pino(options, buffer);
}

const DEBUG = pino.levels.values.debug!;

/**
 * Logs one request at level debug: the line `logger.debug({ method, path, status, ms }, 'request')` writes,
 * formatted here and handed to the logger's destination directly (the request log runs once per request; pino's
 * general formatting costs several times more). A test checks that both lines are the same. Debug, not info: at the
 * default level the console stays quiet (a page polling every second wrote thousands of lines an hour, and the
 * first start's password scrolled away); what matters of requests (logins, changes, who and from where) is in the
 * event log (docs/events.md), and LOG_LEVEL=debug or the LogLevel setting brings the request lines back.
 */
export function logRequest(logger: Logger, method: string, path: string, status: number, ms: number): void {
  if (logger.levelVal > DEBUG) return;
  const stream = (logger as unknown as Record<symbol, { write(line: string): unknown }>)[pino.symbols.streamSym]!;
  stream.write(
    `{"level":${DEBUG},"time":${Date.now()},"method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},"ms":${ms},"msg":"request"}\n`,
  );
}

/**
 * The log level in effect. LOG_LEVEL, when set, wins for the whole run (an operator debugging a controller sets it
 * and expects it to hold); otherwise the LogLevel setting decides, at start and whenever it changes. Each decision is
 * logged: at start which one applies, and a change of the setting either its new level or, while LOG_LEVEL holds,
 * that it does not apply.
 */
export function createLogLevel(logger: Logger, environment: { level: string; fromEnvironment: boolean }) {
  let setting: string | undefined;
  return {
    /** Applies the LogLevel setting's level (called at start and on every settings change). */
    applySetting(level: string): void {
      if (level === setting) return;
      const atStart = setting === undefined;
      setting = level;
      if (environment.fromEnvironment) {
        logger.level = environment.level;
        if (atStart)
          logger.info(
            { logLevel: environment.level, setting: level },
            `log level ${environment.level} from LOG_LEVEL, which wins over the LogLevel setting (${level}) while it is set`,
          );
        else
          logger.warn(
            { logLevel: environment.level, setting: level },
            `the LogLevel setting is now ${level}; the log level stays ${environment.level} because LOG_LEVEL is set (unset it to let the setting decide)`,
          );
        return;
      }
      const message = `log level ${level} from the LogLevel setting${atStart ? '' : ' (changed)'}`;
      // Written at whichever of the old and new level is more verbose, so it is seen either way.
      if (pino.levels.values[level]! <= logger.levelVal) {
        logger.level = level;
        logger.info({ logLevel: level }, message);
      } else {
        logger.info({ logLevel: level }, message);
        logger.level = level;
      }
    },
  };
}

export type LogLevel = ReturnType<typeof createLogLevel>;
