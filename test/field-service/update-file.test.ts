import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ed25519 } from '@noble/curves/ed25519.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newSigningKey, parseTrustedKeys, UpdateRefused, verifyUpdateFile, writeUpdateFile } from '../../services/field-service/update-file.js';

/**
 * Signed update files (docs/field-service.md#update-files): what verification accepts and every reason it refuses
 * (unsigned, untrusted key, tampered manifest or payload, older version, too old a running version, another
 * database lineage or architecture); then `npm run release` and `npm run verify-update` on the real tree.
 */

const RUNNING = { version: '0.1.0', migrations: ['0000_a', '0001_b'], architecture: 'linux-arm64' };
const key = newSigningKey();
const payload = Buffer.from('a tar.gz of the controller, in a test');
const manifest = {
  version: '0.2.0',
  minimumVersion: '0.1.0',
  migrations: ['0000_a', '0001_b', '0002_c'],
  architecture: 'linux-arm64',
  createdAt: '2026-06-01T08:00:00.000Z',
};
const good = writeUpdateFile(manifest, payload, key.secretKey);
const refusal = (file: Uint8Array, keys = [key.publicKey], running = RUNNING) => {
  try {
    verifyUpdateFile(file, keys, running);
  } catch (err) {
    expect(err).toBeInstanceOf(UpdateRefused);
    return (err as Error).message;
  }
  return 'accepted';
};

describe('verification', () => {
  test('the signature is plain Ed25519 (RFC 8032): an independent implementation checks ours, and ours checks its', () => {
    // Noble's Ed25519 (the web client's library) on the signature line of a file written by the controller.
    const [, line, signature] = good
      .subarray(0, good.length - payload.length)
      .toString()
      .split('\n');
    expect(ed25519.verify(Buffer.from(signature!, 'base64'), Buffer.from(line!), key.publicKey)).toBe(true);
    expect(Buffer.from(ed25519.getPublicKey(key.secretKey))).toEqual(Buffer.from(key.publicKey));
    // A file whose signature Noble made, for Noble's own key: accepted, and refused once its line changes.
    const secret = ed25519.utils.randomSecretKey();
    const [header, nobleLine] = writeUpdateFile(manifest, payload, secret).toString('latin1').split('\n');
    const nobleSignature = Buffer.from(ed25519.sign(Buffer.from(nobleLine!, 'latin1'), secret)).toString('base64');
    const signedByNoble = (l: string) => Buffer.concat([Buffer.from(`${header}\n${l}\n${nobleSignature}\n`, 'latin1'), payload]);
    expect(refusal(signedByNoble(nobleLine!), [ed25519.getPublicKey(secret)])).toBe('accepted');
    expect(refusal(signedByNoble(nobleLine!.replace('0.2.0', '0.3.0')), [ed25519.getPublicKey(secret)])).toMatch(/does not verify/);
  });
  test('a file signed by a trusted key, newer, continuing the migrations, for this architecture is accepted', () => {
    const { manifest: m, payload: p } = verifyUpdateFile(good, [newSigningKey().publicKey, key.publicKey], RUNNING);
    expect(m).toMatchObject({ ...manifest, format: 'charge-controller-update', payloadBytes: payload.length });
    expect(p.equals(payload)).toBe(true);
  });

  test('each bad file is refused with its reason', () => {
    const text = good.toString('latin1');
    const lines = text.split('\n');
    const unsigned = Buffer.from([lines[0], lines[1], '', lines.slice(3).join('\n')].join('\n'), 'latin1');
    const editedManifest = Buffer.from(text.replace('"version":"0.2.0"', '"version":"0.9.0"'), 'latin1');
    const tamperedPayload = Buffer.from(good);
    tamperedPayload[tamperedPayload.length - 3]! ^= 0x01;
    const cut = good.subarray(0, good.length - 1);
    expect(refusal(Buffer.from('hello'))).toMatch(/Not an update file/);
    expect(refusal(unsigned)).toMatch(/unsigned/);
    expect(refusal(good, [newSigningKey().publicKey])).toMatch(/does not verify with any trusted key/);
    expect(refusal(good, [])).toMatch(/No public key is trusted/);
    expect(refusal(editedManifest)).toMatch(/does not verify/);
    expect(refusal(tamperedPayload)).toMatch(/does not match its signed checksum/);
    expect(refusal(cut)).toMatch(/does not match its signed checksum/);
    const sign = (m: Partial<typeof manifest>) => writeUpdateFile({ ...manifest, ...m }, payload, key.secretKey);
    expect(refusal(sign({ version: '0.1.0' }))).toMatch(/not newer than the running 0.1.0: older versions are refused/);
    expect(refusal(sign({ version: '0.0.9' }))).toMatch(/older versions are refused/);
    expect(refusal(sign({ version: '0.10.0' }))).toBe('accepted'); // numeric, not text order
    expect(refusal(sign({ minimumVersion: '0.1.1' }))).toMatch(/updates from 0.1.1 or later/);
    expect(refusal(sign({ migrations: ['0000_a', '0001_x', '0002_c'] }))).toMatch(/migrations do not continue/);
    expect(refusal(sign({ migrations: ['0000_a'] }))).toMatch(/migrations do not continue/);
    expect(refusal(sign({ architecture: 'linux-x64' }))).toMatch(/built for linux-x64/);
    expect(refusal(sign({ architecture: 'any' }))).toBe('accepted');
  });

  test('trusted keys: one hex key a line, comments allowed, anything else refused', () => {
    const hex = Buffer.from(key.publicKey).toString('hex');
    expect(parseTrustedKeys(`# site keys\n${hex}  # release 2026\n\n`)).toEqual([key.publicKey]);
    expect(() => parseTrustedKeys('not-a-key')).toThrow(/64 hex digits/);
  });
});

describe('npm run release and npm run verify-update', () => {
  const ROOT = fileURLToPath(new URL('../..', import.meta.url));
  const run = async (command: string, ...args: string[]) => {
    try {
      const { stdout, stderr } = await promisify(execFile)('node', ['bin/run.mjs', command, ...args], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
      return { code: 0, out: stdout + stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, out: e.stdout + e.stderr };
    }
  };
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cc-update-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test('a release of this tree verifies up to its version (not newer than itself); tampered or untrusted, refused', { timeout: 300_000 }, async () => {
    const secret = join(dir, 'release.key');
    expect((await run('release', '--new-key', secret)).code).toBe(0);
    const file = join(dir, 'update.ccupdate');
    const released = await run('release', '--key', secret, '--out', file);
    expect(released.code, released.out).toBe(0);
    expect(released.out).toMatch(/signed/);

    // Signature and checksum pass; the version check is the last one, and a tree cannot update itself.
    const own = await run('verify-update', file, '--trust', `${secret}.pub`);
    expect(own.code).toBe(1);
    expect(own.out).toMatch(/^refused: The update is version .*, not newer than the running/m);

    const bytes = await readFile(file);
    bytes[bytes.length - 100]! ^= 0xff;
    await writeFile(file, bytes);
    expect((await run('verify-update', file, '--trust', `${secret}.pub`)).out).toMatch(/does not match its signed checksum/);
    const other = join(dir, 'other.key');
    await run('release', '--new-key', other);
    expect((await run('verify-update', file, '--trust', `${other}.pub`)).out).toMatch(/does not verify with any trusted key/);
    expect((await run('verify-update', file, '--trust', join(dir, 'missing'))).out).toMatch(/No trusted keys/);
  });
});
