import { readFile } from 'node:fs/promises';
import { parseTrustedKeys, UpdateRefused } from './update-file.js';

/** Where the controller's trusted update keys are configured at install time (UPDATE_TRUSTED_KEYS overrides). */
export const DEFAULT_TRUSTED_KEYS = '/etc/charge-controller/update-keys';

/** The trusted keys file to read: the one given, else UPDATE_TRUSTED_KEYS, else the default. */
export const trustedKeysFile = (given?: string, env: NodeJS.ProcessEnv = process.env) => given ?? env.UPDATE_TRUSTED_KEYS ?? DEFAULT_TRUSTED_KEYS;

/** The public keys the controller trusts; none (an unreadable file) refuses with the reason. */
export async function loadTrustedKeys(file: string): Promise<Uint8Array[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UpdateRefused(`No trusted keys: ${file} cannot be read`);
  }
  return parseTrustedKeys(text);
}
