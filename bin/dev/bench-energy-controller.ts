import { Writable } from 'node:stream';
import { startController, type Controller } from '../start-controller.js';
import { loadConfig } from '../../services/config.js';
import { createLogger } from '../../services/logger.js';
import type { SettingPair } from '../../services/settings/index.js';
import type { ManualClock } from './manual-clock.js';

/** The energy benchmark's controllers: the composition `npm start` runs, simulated, its core on this thread, every timer on `clock`. */

const PASSWORD = 'bench-energy-operator';

export async function startSimulatedController(clock: ManualClock, dataDir: string, env: Record<string, string> = {}): Promise<Controller> {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, OPERATOR_PASSWORD: PASSWORD, HARDWARE: 'sim', ...env });
  const quiet = new Writable({ write: (_chunk, _enc, done) => done() });
  const logger = await createLogger({ logLevel: 'warn', logFormat: 'json' }, quiet);
  return startController({
    config,
    logger,
    core: 'thread',
    clock,
    now: () => clock.now(),
    showInitialPassword: () => undefined,
    onCoreLost: (reason) => {
      throw new Error(`the core was lost: ${reason}`);
    },
  });
}

export async function configure(controller: Controller, pairs: SettingPair[]): Promise<void> {
  const result = await controller.settings.set({ role: 'manufacturer', username: 'bench' }, pairs);
  const refused = result.params.filter((p) => !p.success);
  if (refused.length) throw new Error(`settings refused: ${JSON.stringify(refused)}`);
}
