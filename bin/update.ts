import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { installUpdate } from '../services/field-service/install-update.js';
import { readHistory, readSlotState } from '../services/field-service/slots.js';
import { DEFAULT_TRUSTED_KEYS, loadTrustedKeys, trustedKeysFile } from '../services/field-service/trusted-keys.js';
import { launcherPidFile } from './slot-launcher.js';

const USAGE = `Install a signed update into the inactive slot; the controller switches to it on trial once no charge runs.

  npm run update -- <file> [--trust <trusted keys file>] [--no-switch]
  npm run update -- --status

Trusted keys: --trust, else UPDATE_TRUSTED_KEYS, else ${DEFAULT_TRUSTED_KEYS}. The install root: UPDATE_ROOT, else
this tree. --no-switch: install only; the update goes on trial at the controller's next start.
--status: the installed versions and the update history (docs/field-service.md#installing-an-update).`;

/** This tree, or the install root when this tree is one of its slots. */
function defaultRoot(): string {
  const tree = fileURLToPath(new URL('../..', import.meta.url));
  return basename(dirname(tree)) === 'slots' ? dirname(dirname(tree)) : tree;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { trust: { type: 'string' }, 'no-switch': { type: 'boolean' }, status: { type: 'boolean' } },
  });
  const root = resolve(process.env.UPDATE_ROOT ?? defaultRoot());
  if (values.status) {
    process.stdout.write(`${JSON.stringify({ ...readSlotState(root), history: readHistory(root) }, null, 2)}\n`);
    return;
  }
  if (positionals.length !== 1) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const { manifest, slot, fromVersion } = await installUpdate(await readFile(positionals[0]!), {
    root,
    trustedKeys: await loadTrustedKeys(trustedKeysFile(values.trust)),
  });
  process.stdout.write(`installed: version ${manifest.version} in slot ${slot} (running ${fromVersion})\n`);
  if (values['no-switch']) {
    process.stdout.write('it goes on trial at the next start of the controller\n');
    return;
  }
  try {
    process.kill(Number(readFileSync(launcherPidFile(root), 'utf8')), 'SIGHUP');
    process.stdout.write('the controller switches to it on trial once no charge runs (npm run update -- --status shows the outcome)\n');
  } catch {
    process.stdout.write('no launcher runs here: the update goes on trial at the next start of the controller\n');
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`refused: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
