import { RESTARTS_IN_PROCESS } from '../drivers/index.js';
import { ConfigError, loadConfig } from '../services/config.js';
import { startController, type Controller } from './start-controller.js';
import { createLogger } from '../services/logger.js';
import { notifySystemd, restartPolicy } from '../services/core/systemd.js';
import { inProcessRestarts } from './restarts.js';
import { createUpdateSwitch } from './update-switch.js';
import { createUpdateInstaller, switchModeOf } from '../services/field-service/updates.js';
import { trustedKeysFile } from '../services/field-service/trusted-keys.js';
import { installRootOf } from '../services/field-service/slots.js';
import { fileURLToPath } from 'node:url';

/** The controller's main process: `npm start`, or the systemd unit (docs/raspberry-pi.md). */
async function main(): Promise<void> {
  process.umask(0o077);
  let config;
  try {
    config = loadConfig(process.env, { stdoutIsTTY: process.stdout.isTTY });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nThe controller did not start. See docs/configuration.md.\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = await createLogger(config);
  /**
   * Started by the launcher (bin/launcher.ts, docs/field-service.md#installing-an-update), the controller tells it
   * when it is ready (the launcher's "healthy": database migrated, core running, API listening) and the launcher
   * tells systemd; else it tells systemd itself.
   */
  const underLauncher = process.env.CHARGE_CONTROLLER_LAUNCHER === '1' && typeof process.send === 'function';
  const notify = (message: string) => {
    if (underLauncher) process.send!({ type: message === 'READY=1' ? 'ready' : 'stopping' });
    else notifySystemd(message, { onError: (error) => logger.warn({ error, message }, 'systemd could not be notified') });
  };

  let signals = 0;
  /** Graceful stop (in-flight requests finish, a running transaction ends with reason Reboot), then exit. */
  const shutdown = (reason: string) => {
    if (++signals > 1) {
      logger.warn({ reason }, 'second signal: exiting at once');
      process.exit(1);
    }
    logger.info({ reason }, 'shutting down');
    notify('STOPPING=1');
    inProcess
      .settled()
      .then(() => inProcess.current().close())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };

  /**
   * POST /v1/restart. Where the hardware can be started again in this process (HARDWARE=sim), the controller closes
   * and starts again on the port it had, reading every setting afresh. Where it cannot (HARDWARE=rpi: pigpio loads
   * once per process), the process ends gracefully and its service manager starts it again (the systemd unit:
   * Restart=always); without a service manager (INVOCATION_ID unset) the endpoint is not offered, since nothing would
   * start the controller again.
   */
  const policy = restartPolicy(RESTARTS_IN_PROCESS[config.hardware]);
  // Under the launcher an installed update is started by it: the controller installs (OCPP UpdateFirmware), or
  // hears from the launcher that `npm run update` did, and then ends once no charge runs (the chosen switch mode).
  const updateSwitch = createUpdateSwitch({ charging: () => inProcess.current().charging, shutdown: (r) => shutdown(r), logger });
  const updates = underLauncher
    ? createUpdateInstaller({
        root: process.env.UPDATE_ROOT ?? installRootOf(fileURLToPath(new URL('../..', import.meta.url))),
        trustedKeysFile: trustedKeysFile(),
        switchMode: () => switchModeOf(inProcess.current().settings),
        switchTo: (mode) => updateSwitch.switchTo(mode),
        log: (message) => logger.warn(message),
      })
    : undefined;
  const inProcess: ReturnType<typeof inProcessRestarts<Controller>> = inProcessRestarts(
    (port, inProcessRestart) => {
      if (port !== undefined) logger.info('restarting');
      const restart =
        policy === 'process'
          ? inProcessRestart
          : policy === 'service-manager'
            ? () => shutdown('restart: the service manager starts the controller again')
            : undefined;
      return startController({
        config: port === undefined ? config : { ...config, port },
        logger,
        ...(restart ? { restart } : {}),
        ...(updates ? { updates } : {}),
      });
    },
    (err: unknown) => {
      logger.error({ err }, 'restart failed');
      process.exit(1);
    },
  );
  if (policy !== 'process' && policy !== 'service-manager') {
    logger.info(
      { hardware: config.hardware },
      'POST /v1/restart is not offered: this hardware restarts through its service manager (the systemd unit), and none runs this process',
    );
  }
  await inProcess.start();
  notify('READY=1');

  if (underLauncher) {
    process.on('message', (message: { type?: string }) => {
      // The launcher's SIGHUP from `npm run update` (the message keeps its name: launchers are not updated).
      if (message?.type === 'switch-when-idle') updates?.switchToInstalled();
    });
  }
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`The controller failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
