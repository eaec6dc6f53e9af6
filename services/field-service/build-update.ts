import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { treeMigrations, treeVersion } from './slots.js';
import { writeUpdateFile } from './update-file.js';

export interface BuildOptions {
  /** The controller tree to pack (its package.json gives the version, its migration journal the migrations). */
  tree: string;
  /** What of the tree goes into the payload (relative paths). */
  paths: string[];
  secretKey: Uint8Array;
  minimumVersion?: string;
  /** `${process.platform}-${process.arch}` unless given (`any`: no native code in the payload). */
  architecture?: string;
  now?: () => number;
}

/** The signed update file of a controller tree (`npm run release`; tests pack small trees the same way). */
export async function buildUpdateFile({ tree, paths, secretKey, minimumVersion = '0.0.0', architecture, now = Date.now }: BuildOptions) {
  const work = await mkdtemp(join(tmpdir(), 'cc-release-'));
  try {
    const tarball = join(work, 'payload.tar.gz');
    execFileSync('tar', ['-czf', tarball, '--exclude=dist/.tsbuildinfo', '-C', tree, ...paths], { stdio: 'inherit' });
    const manifest = {
      version: treeVersion(tree),
      minimumVersion,
      migrations: treeMigrations(tree),
      architecture: architecture ?? `${process.platform}-${process.arch}`,
      createdAt: new Date(now()).toISOString(),
    };
    return { manifest, file: writeUpdateFile(manifest, await readFile(tarball), secretKey) };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
