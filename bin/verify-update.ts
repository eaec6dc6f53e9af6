import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { migrationTags } from '../db/tables.js';
import { DEFAULT_TRUSTED_KEYS, loadTrustedKeys, trustedKeysFile } from '../services/field-service/trusted-keys.js';
import { verifyUpdateFile } from '../services/field-service/update-file.js';
import { FIRMWARE_VERSION } from '../services/settings/index.js';

const USAGE = `Check an update file: signature against the trusted keys, checksum, version, migrations, architecture.

  npm run verify-update -- <file> [--trust <trusted keys file>]

Trusted keys: --trust, else UPDATE_TRUSTED_KEYS, else ${DEFAULT_TRUSTED_KEYS} (one hex public key a line).
Nothing is installed (npm run update installs).`;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { trust: { type: 'string' } } });
  if (positionals.length !== 1) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const { manifest } = verifyUpdateFile(await readFile(positionals[0]!), await loadTrustedKeys(trustedKeysFile(values.trust)), {
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
