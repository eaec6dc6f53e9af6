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

  /**
   * POST /v1/restart: the controller closes (in-flight requests finish, a running transaction ends with reason
   * Reboot, the database closes) and starts again in this process on the port it had, reading every setting afresh.
   */
  let restarting: Promise<void> | undefined;
  const restart = () => {
    restarting ??= (async () => {
      logger.info('restarting');
      await controller.close();
      controller = await startController({ config: { ...config, port: controller.port }, logger, restart });
    })().then(
      () => (restarting = undefined),
      (err: unknown) => {
        logger.error({ err }, 'restart failed');
        process.exit(1);
      },
    );
  };
  let controller = await startController({ config, logger, restart });

  let signals = 0;
  const shutdown = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      logger.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    logger.info({ signal }, 'shutting down');
    (restarting ?? Promise.resolve())
      .then(() => controller.close())
      .then(
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
