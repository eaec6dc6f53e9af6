import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { notifySystemd, watchdogIntervalMs } from '../services/core/systemd.js';
import { createLauncher, writeLauncherPid } from './slot-launcher.js';

/**
 * The launcher's process: what the systemd unit starts (`node dist/bin/launcher.js <Node options for the
 * controller>`), and a test's stand-in for systemd starts the same way. Settings from the environment
 * (docs/field-service.md#installing-an-update): UPDATE_ROOT (default: this tree), DATA_DIR, DATABASE_URL,
 * UPDATE_HEALTHY_WITHIN_S (180), UPDATE_SETTLE_S (30), UPDATE_MAX_STARTS (3), UPDATE_STOP_GRACE_S (15).
 */
const seconds = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) {
    process.stderr.write(`${name} must be a number of seconds (0 or more)\n`);
    process.exit(2);
  }
  return value * 1000;
};

const starts = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`${name} must be a whole number of starts (1 or more)\n`);
    process.exit(2);
  }
  return value;
};

const root = resolve(process.env.UPDATE_ROOT ?? fileURLToPath(new URL('../..', import.meta.url)));
const dataDir = resolve(process.env.DATA_DIR ?? './data');
const log = (message: string) => process.stderr.write(`launcher: ${message}\n`);
const launcher = createLauncher({
  root,
  databaseFile: process.env.DATABASE_URL === undefined ? join(dataDir, 'controller.db') : null,
  healthyWithinMs: seconds('UPDATE_HEALTHY_WITHIN_S', 180),
  settleMs: seconds('UPDATE_SETTLE_S', 30),
  maxAttempts: starts('UPDATE_MAX_STARTS', 3),
  stopGraceMs: seconds('UPDATE_STOP_GRACE_S', 15),
  nodeArgs: process.argv.slice(2),
  // The controller resolves DATA_DIR against its own working directory (its slot): it gets the launcher's.
  env: { ...process.env, DATA_DIR: dataDir },
  ...(watchdogIntervalMs() !== undefined ? { watchdogMs: watchdogIntervalMs()! } : {}),
  notify: (message) => notifySystemd(message, { onError: (error) => log(`systemd could not be notified (${message}): ${error}`) }),
  log,
});
writeLauncherPid(root);
process.on('SIGTERM', () => launcher.stop());
process.on('SIGINT', () => launcher.stop());
process.on('SIGHUP', () => launcher.updateInstalled());
launcher.run().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
