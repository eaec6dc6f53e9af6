import { spawn } from 'node:child_process';

/**
 * systemd's notification protocol (sd_notify) for the service unit (docs/raspberry-pi.md): READY=1 once the
 * controller listens, STOPPING=1 when it stops, WATCHDOG=1 from the charge-point core's thread. Node cannot send on
 * the unix datagram socket systemd names in NOTIFY_SOCKET, so the messages go through `systemd-notify`, which comes
 * with systemd itself (nothing to install); the unit says `NotifyAccess=all`, because the sender is that child
 * process, not the controller. systemd-notify (systemd 246 and later) waits until the manager has read the message,
 * so the manager can still tell which service it came from. Without NOTIFY_SOCKET (not started by such a unit)
 * nothing is sent.
 */

export type NotifyEnv = Partial<Record<'NOTIFY_SOCKET' | 'WATCHDOG_USEC' | 'WATCHDOG_PID', string>>;

/** Runs `systemd-notify` with the message; `done` is told whether it was delivered (or why not). */
export type Notifier = (message: string, done: (error?: string) => void) => void;

const systemdNotify: Notifier = (message, done) => {
  const child = spawn('systemd-notify', [message], { stdio: 'ignore' });
  child.once('error', (err) => done(err.message));
  child.once('exit', (code) => done(code === 0 ? undefined : `systemd-notify exited with ${code}`));
};

/** Sends `message` (READY=1, STOPPING=1) when the process runs under a unit that wants notifications. */
export function notifySystemd(message: string, opts: { env?: NotifyEnv; notify?: Notifier; onError?: (error: string) => void } = {}): boolean {
  const env = opts.env ?? process.env;
  if (!env.NOTIFY_SOCKET) return false;
  (opts.notify ?? systemdNotify)(message, (error) => {
    if (error) opts.onError?.(error);
  });
  return true;
}

/** The watchdog interval systemd asks for (WATCHDOG_USEC, for this process: WATCHDOG_PID), in ms; undefined: none. */
export function watchdogIntervalMs(env: NotifyEnv = process.env, pid = process.pid): number | undefined {
  if (!env.NOTIFY_SOCKET || !env.WATCHDOG_USEC) return undefined;
  if (env.WATCHDOG_PID !== undefined && env.WATCHDOG_PID !== String(pid)) return undefined;
  const usec = Number(env.WATCHDOG_USEC);
  return Number.isInteger(usec) && usec > 0 ? usec / 1000 : undefined;
}

/** Sends notifications one after another from a process of its own. */
export interface NotifyRelay {
  send(message: string): void;
  close(): void;
}

/**
 * A shell that runs `systemd-notify` for every line it reads: the thread that feeds the watchdog only writes a line
 * to a pipe (about 0.1 ms), where starting systemd-notify itself would fork this whole process every time (about
 * 8 ms, up to 60 ms, measured in a worker of a process of 80 MB; longer on a Pi), a pause the charge-point core's
 * safety reactions must not take. The shell is started once. A notification that fails is reported (its stderr).
 */
export function createNotifyRelay(onError: (error: string) => void = () => {}): NotifyRelay {
  const shell = spawn('/bin/sh', ['-c', 'while IFS= read -r m; do systemd-notify "$m" || echo "systemd-notify $m failed ($?)" >&2; done'], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let closed = false;
  shell.stderr!.setEncoding('utf8').on('data', (text: string) => onError(text.trim()));
  shell.once('error', (err) => onError(err.message));
  shell.once('exit', (code) => {
    if (!closed) onError(`the notification relay ended (${code})`);
  });
  shell.stdin!.on('error', () => {}); // the relay ended: reported by 'exit'
  return {
    send(message) {
      if (!closed && shell.exitCode === null) shell.stdin!.write(`${message}\n`);
    },
    close() {
      closed = true;
      shell.stdin!.end();
    },
  };
}

export interface WatchdogOptions {
  env?: NotifyEnv;
  pid?: number;
  relay?: (onError: (error: string) => void) => NotifyRelay;
  setInterval?: (fn: () => void, ms: number) => unknown;
  clearInterval?: (id: unknown) => void;
  /** A notification failed (each different failure once). */
  onError?: (error: string) => void;
}

/**
 * Keeps systemd's watchdog fed: WATCHDOG=1 at once and every half interval, from the thread that calls it (the
 * charge-point core: if its event loop stops, the notifications stop, and systemd restarts the service), through a
 * relay. Returns undefined when systemd asks for no watchdog.
 */
export function startWatchdog(opts: WatchdogOptions = {}): { intervalMs: number; stop(): void } | undefined {
  const intervalMs = watchdogIntervalMs(opts.env, opts.pid);
  if (intervalMs === undefined) return undefined;
  const every = opts.setInterval ?? ((fn, ms) => setInterval(fn, ms));
  const clear = opts.clearInterval ?? ((id) => clearInterval(id as NodeJS.Timeout));
  let last: string | undefined;
  const relay = (opts.relay ?? createNotifyRelay)((error) => {
    if (error !== last) opts.onError?.(error);
    last = error;
  });
  const feed = () => relay.send('WATCHDOG=1');
  feed();
  const timer = every(feed, Math.max(1, Math.floor(intervalMs / 2)));
  return {
    intervalMs,
    stop() {
      clear(timer);
      relay.close();
    },
  };
}

/**
 * How POST /v1/restart restarts the controller: in its process where the hardware can be started again there
 * (`process`), else by ending the process for its service manager to start it again (`service-manager`: systemd
 * sets INVOCATION_ID for every process of a unit); undefined where neither can (the endpoint is not offered).
 */
export function restartPolicy(
  restartsInProcess: boolean,
  env: { INVOCATION_ID?: string | undefined } = process.env,
): 'process' | 'service-manager' | undefined {
  if (restartsInProcess) return 'process';
  return env.INVOCATION_ID ? 'service-manager' : undefined;
}
