import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { installUpdate } from '../services/field-service/install-update.js';
import { installRootOf, readHistory, readSlotState } from '../services/field-service/slots.js';
import { DEFAULT_TRUSTED_KEYS, loadTrustedKeys, trustedKeysFile } from '../services/field-service/trusted-keys.js';
import { launcherPidFile } from './slot-launcher.js';

const USAGE = `Install a signed update into the inactive slot; the controller switches to it on trial once no charge runs.

  npm run update -- <file> [--trust <trusted keys file>] [--finish-charge | --wait-for-idle | --no-switch]
  npm run update -- --status

Trusted keys: --trust, else UPDATE_TRUSTED_KEYS, else ${DEFAULT_TRUSTED_KEYS}. The install root: UPDATE_ROOT, else
this tree. How a running charge meets the update (default: the controller's setting UpdateSwitchMode):
--wait-for-idle: new charges may still start; the switch comes at the first moment no charge runs.
--finish-charge: the running charge goes on, no new one starts; the switch comes as soon as it has ended.
--no-switch: install only; the update goes on trial at the controller's next start.
Only one install runs at a time (this tool, OCPP, the web interface): a second one is refused.
--status: the installed versions and the update history (docs/field-service.md#installing-an-update).`;

/** This tree, or the install root when this tree is one of its slots. */
const defaultRoot = () => installRootOf(fileURLToPath(new URL('../..', import.meta.url)));

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      trust: { type: 'string' },
      'no-switch': { type: 'boolean' },
      'finish-charge': { type: 'boolean' },
      'wait-for-idle': { type: 'boolean' },
      status: { type: 'boolean' },
    },
  });
  const root = resolve(process.env.UPDATE_ROOT ?? defaultRoot());
  if (values.status) {
    process.stdout.write(`${JSON.stringify({ ...readSlotState(root), history: readHistory(root) }, null, 2)}\n`);
    return;
  }
  const switches = (['no-switch', 'finish-charge', 'wait-for-idle'] as const).filter((option) => values[option]);
  if (positionals.length !== 1 || switches.length > 1) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const { manifest, slot, fromVersion } = await installUpdate(await readFile(positionals[0]!), {
    root,
    trustedKeys: await loadTrustedKeys(trustedKeysFile(values.trust)),
    // Kept in the trial: the controller reads it when the launcher passes this tool's SIGHUP on.
    ...(values['finish-charge'] ? { switchMode: 'finish-charge' as const } : values['wait-for-idle'] ? { switchMode: 'wait-for-idle' as const } : {}),
    log: (message) => process.stderr.write(`${message}\n`),
  });
  process.stdout.write(`installed: version ${manifest.version} in slot ${slot} (running ${fromVersion})\n`);
  if (values['no-switch']) {
    process.stdout.write('it goes on trial at the next start of the controller\n');
    return;
  }
  try {
    process.kill(Number(readFileSync(launcherPidFile(root), 'utf8')), 'SIGHUP');
    const how = values['finish-charge']
      ? 'the running charge is finished, no new one starts, then the controller switches to it on trial'
      : values['wait-for-idle']
        ? 'the controller switches to it on trial at the first moment no charge runs'
        : 'the controller switches to it on trial once no charge runs, as its setting UpdateSwitchMode says';
    process.stdout.write(`${how} (npm run update -- --status shows the outcome)\n`);
  } catch {
    process.stdout.write('no launcher runs here: the update goes on trial at the next start of the controller\n');
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`refused: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
