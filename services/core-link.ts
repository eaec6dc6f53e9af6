import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import * as v from 'valibot';
import type { Logger } from './logger.js';
import type { CoreInit, CoreLocal } from './core/run.js';
import { createSilenceWatch } from './core/liveness.js';
import { FromCoreSchema, HEARTBEAT_MS, LIVENESS_TIMEOUT_MS, type CoreStart, type FromCore, type ToCore } from './core/protocol.js';

/** Exit code of a controller whose charge-point core died or stopped answering (a supervisor restarts it). */
export const CORE_LOST_EXIT_CODE = 70;

type Reply = Extract<FromCore, { type: 'reply' }>;
type Request = Extract<ToCore, { id: number }>;
/** Messages the link's owner receives (the rest the link handles itself). */
export type CoreEvent = Exclude<FromCore, { type: 'reply' | 'hardware' | 'failed' | 'ready' }>;

export interface CoreLinkOptions {
  init: Omit<CoreInit, 'watchMain'>;
  /**
   * `worker`: the core in its own thread (production); `thread`: on the main thread behind a MessageChannel, with
   * the same messages (tests: a manual clock, inspection and broken devices can be passed in `local`).
   */
  mode: 'worker' | 'thread';
  local?: CoreLocal;
  logger: Logger;
  /** Every message of the core but replies. */
  onEvent(event: CoreEvent): void;
  /**
   * The core died, stopped answering (worker) or failed (its charge cycle failed): by default the process logs why
   * and exits non-zero.
   */
  onLost?: (reason: string) => void;
}

export interface CoreLink {
  /** Starts the charge cycle with the settings; resolves once it runs. */
  start(start: CoreStart): Promise<void>;
  /** A message without an answer (inputs). */
  send(message: Exclude<ToCore, { id: number } | { type: 'start' | 'heartbeat' }>): void;
  /** A message answered by the core (sim, sync, stop). */
  request(message: DistributiveOmit<Request, 'id'>): Promise<Reply>;
  /** Graceful stop: the core completes the transaction, makes its outputs safe and ends. */
  close(): Promise<void>;
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/** The compiled worker file: next to this module when it runs from dist/, else dist/'s copy (tests run the source). */
function workerFile(): URL {
  const beside = new URL('./core/worker.js', import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  const built = new URL('../dist/services/core/worker.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  throw new Error('the charge-point core needs the compiled worker (dist/services/core/worker.js): run npm run build');
}

/**
 * The main thread's end of the charge-point core: starts the core (a worker thread, or on this thread for tests),
 * checks every message from it, answers its requests, and watches it: a core that dies, or (worker) sends nothing
 * for LIVENESS_TIMEOUT_MS, ends the process. Resolves once the core has loaded its hardware.
 */
export async function startCoreLink(options: CoreLinkOptions): Promise<CoreLink> {
  const { logger, mode } = options;
  const watch = mode === 'worker';
  const init: CoreInit = { ...options.init, watchMain: watch };
  let closing = false;
  let lost = false;
  /** The core answered `ready`: its charge cycle runs. */
  let running = false;
  /** Liveness is watched both ways from the core's `ready` on (before, the main thread is busy opening the database). */
  let watching = false;
  const onLost =
    options.onLost ??
    ((reason: string) => {
      logger.fatal({ reason }, `the charge-point core is lost (${reason}): the controller stops; a supervisor restarts it`);
      process.exit(CORE_LOST_EXIT_CODE);
    });
  const loseCore = (reason: string) => {
    if (lost || closing) return;
    lost = true;
    clearInterval(heartbeat);
    onLost(reason);
  };

  let post: (message: ToCore) => void;
  let terminate: () => Promise<void>;
  const handlers: Array<(message: unknown) => void> = [];
  const onMessage = (raw: unknown) => handlers.forEach((h) => h(raw));
  if (mode === 'worker') {
    const worker = new Worker(workerFile(), { workerData: init, stdout: false, stderr: false });
    worker.on('message', onMessage);
    worker.on('error', (err) => loseCore(`it failed: ${err.message}`));
    worker.on('exit', (code) => {
      // A core asked to stop ends its thread right after its answer, which may be read in the same turn as the exit:
      // answer what still waits, so a stop never hangs.
      for (const [id, resolve] of pending) resolve({ type: 'reply', id, ok: closing, error: `the core's thread ended with code ${code}` });
      pending.clear();
      loseCore(`its thread ended with code ${code}`);
    });
    post = (m) => worker.postMessage(m);
    terminate = async () => {
      await worker.terminate();
    };
  } else {
    const { port1, port2 } = new MessageChannel();
    port1.on('message', onMessage);
    // Loaded only here: with the core in its worker, the main thread loads none of its modules.
    const { runCore } = await import('./core/run.js');
    runCore(port2, init, options.local);
    post = (m) => port1.postMessage(m);
    terminate = async () => {
      port1.close();
    };
  }

  const core = createSilenceWatch(HEARTBEAT_MS, LIVENESS_TIMEOUT_MS);
  let nextId = 1;
  const pending = new Map<number, (reply: Reply) => void>();
  const waiting: { hardware?: { resolve(): void; reject(e: Error): void }; ready?: { resolve(): void; reject(e: Error): void } } = {};

  handlers.push((raw) => {
    core.heard();
    const parsed = v.safeParse(FromCoreSchema, raw);
    if (!parsed.success) {
      logger.error({ issues: v.flatten(parsed.issues) }, 'refused a malformed message from the charge-point core');
      return;
    }
    const message = parsed.output;
    switch (message.type) {
      case 'hardware':
        return waiting.hardware?.resolve();
      case 'ready':
        running = true;
        return waiting.ready?.resolve();
      case 'failed': {
        // Once running, a failure (its charge cycle failed; the core made its outputs safe) ends it like a death.
        if (running) return loseCore(`it failed: ${message.error}`);
        const err = new Error(message.error);
        waiting.hardware?.reject(err);
        waiting.ready?.reject(err);
        return;
      }
      case 'reply': {
        const resolve = pending.get(message.id);
        pending.delete(message.id);
        resolve?.(message);
        return;
      }
      default:
        options.onEvent(message);
    }
  });

  // Heartbeats: the core watches for them (worker); this side watches the core's.
  const heartbeat = setInterval(() => {
    if (!watch || !watching) return;
    post({ type: 'heartbeat' }); // also while the core stops: it watches this thread until it has stopped
    if (closing) return;
    const silent = core.silence();
    if (silent !== undefined) loseCore(`it sent nothing for ${Math.round(silent)} ms`);
  }, HEARTBEAT_MS);
  heartbeat.unref();

  try {
    await new Promise<void>((resolve, reject) => (waiting.hardware = { resolve, reject }));
  } catch (err) {
    closing = true;
    clearInterval(heartbeat);
    await terminate();
    throw err;
  }

  const request = (message: DistributiveOmit<Request, 'id'>): Promise<Reply> => {
    const id = nextId++;
    return new Promise<Reply>((resolve) => {
      pending.set(id, resolve);
      post({ ...message, id } as ToCore);
    });
  };

  return {
    async start(start) {
      const ready = new Promise<void>((resolve, reject) => (waiting.ready = { resolve, reject }));
      post({ type: 'start', start });
      await ready;
      core.reset();
      watching = true;
    },
    send: (message) => post(message),
    request,
    async close() {
      if (closing) return;
      // From here on the core is expected to go quiet and end: that is no longer a loss.
      closing = true;
      const reply = lost ? undefined : await request({ type: 'stop' });
      clearInterval(heartbeat);
      if (reply && !reply.ok) logger.error({ error: reply.error }, 'the charge-point core did not stop cleanly');
      await terminate();
    },
  };
}
