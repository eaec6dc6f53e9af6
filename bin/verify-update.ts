import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { migrationTags } from '../db/tables.js';
import { parseTrustedKeys, UpdateRefused, verifyUpdateFile } from '../services/field-service/update-file.js';
import { FIRMWARE_VERSION } from '../services/settings/index.js';

/** Where the controller's trusted update keys are configured at install time (UPDATE_TRUSTED_KEYS overrides). */
export const DEFAULT_TRUSTED_KEYS = '/etc/charge-controller/update-keys';

const USAGE = `Check an update file: signature against the trusted keys, checksum, version, migrations, architecture.

  npm run verify-update -- <file> [--trust <trusted keys file>]

Trusted keys: --trust, else UPDATE_TRUSTED_KEYS, else ${DEFAULT_TRUSTED_KEYS} (one hex public key a line).
Nothing is installed: this controller has no update installer yet (docs/field-service.md).`;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { trust: { type: 'string' } } });
  if (positionals.length !== 1) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const keysFile = values.trust ?? process.env.UPDATE_TRUSTED_KEYS ?? DEFAULT_TRUSTED_KEYS;
  let keysText = '';
  try {
    keysText = await readFile(keysFile, 'utf8');
  } catch {
    throw new UpdateRefused(`No trusted keys: ${keysFile} cannot be read`);
  }
  const { manifest } = verifyUpdateFile(await readFile(positionals[0]!), parseTrustedKeys(keysText), {
    version: FIRMWARE_VERSION,
    migrations: await migrationTags(),
    architecture: `${process.platform}-${process.arch}`,
  });
  process.stdout.write(
    `verified: version ${manifest.version} (from ${manifest.minimumVersion} on), ${manifest.migrations.length} migrations, ${manifest.architecture}, ` +
      `key ${manifest.keyId}; nothing was installed\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`refused: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
