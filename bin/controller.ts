import { ConfigError, loadConfig } from '../services/config.js';
import { startController } from '../services/controller.js';
import { createLogger } from '../services/logger.js';

/** The controller's main process: `npm start`. */
async function main(): Promise<void> {
  process.umask(0o077);
  let config;
  try {
    config = loadConfig(process.env, { stdoutIsTTY: process.stdout.isTTY });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nThe controller did not start. See the configuration table in the README.\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = await createLogger(config);
  const controller = await startController({ config, logger });

  let signals = 0;
  const shutdown = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      logger.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    logger.info({ signal }, 'shutting down');
    controller.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((err: unknown) => {
  process.stderr.write(`The controller failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
