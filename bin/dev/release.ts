import { execFileSync } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildUpdateFile } from '../../services/field-service/build-update.js';
import { newSigningKey } from '../../services/field-service/update-file.js';

const USAGE = `Build and sign an update file from this working tree (docs/field-service.md#update-files).

  npm run release -- --key <secret key file> [--min-version <x.y.z>] [--out <file>]
  npm run release -- --new-key <secret key file>

The payload is what \`npm start\` runs: dist/, the web client, the migrations, package.json and package-lock.json,
and the production dependencies as installed here (their native code is this machine's: build on the target's
architecture). --new-key writes a new Ed25519 key: the secret seed (hex, mode 600) to the file, the public key to
<file>.pub (a line for the controller's trusted keys).`;

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The installed production dependencies (npm's own view of them), as paths relative to the tree. */
function productionModules(): string[] {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return [
    ...new Set(
      out
        .split('\n')
        .map((p) => relative(ROOT, p.trim()))
        .filter((p) => p.startsWith('node_modules/')),
    ),
  ].sort();
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { key: { type: 'string' }, 'new-key': { type: 'string' }, 'min-version': { type: 'string' }, out: { type: 'string' } },
  });
  if (values['new-key']) {
    const { secretKey, publicKey } = newSigningKey();
    await writeFile(values['new-key'], `${Buffer.from(secretKey).toString('hex')}\n`, { mode: 0o600 });
    await chmod(values['new-key'], 0o600);
    await writeFile(`${values['new-key']}.pub`, `${Buffer.from(publicKey).toString('hex')}\n`);
    process.stdout.write(`secret key: ${values['new-key']} (keep it off the controllers)\npublic key: ${values['new-key']}.pub\n`);
    return;
  }
  if (!values.key) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const hex = (await readFile(values.key, 'utf8')).trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error(`${values.key} is not an Ed25519 secret key (64 hex digits; make one with --new-key)`);
  const { manifest, file } = await buildUpdateFile({
    tree: ROOT,
    paths: ['dist', 'api/web/client', 'db/migrations', 'package.json', 'package-lock.json', ...productionModules()],
    secretKey: Uint8Array.from(Buffer.from(hex, 'hex')),
    ...(values['min-version'] ? { minimumVersion: values['min-version'] } : {}),
  });
  const out = values.out ?? `charge-controller-${manifest.version}-${manifest.architecture}.ccupdate`;
  await writeFile(out, file);
  process.stdout.write(`${out}: version ${manifest.version}, ${manifest.migrations.length} migrations, ${file.length} bytes, signed\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`release failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
