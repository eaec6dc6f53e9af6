import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeIncompleteUnpacking, unpackedFiles } from './launcher.js';

describe("the packaged Chromium's unpacking", () => {
  let dir = '';
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('names Chromium and every file of the SwiftShader archive (of the version in package-lock.json)', () => {
    expect(unpackedFiles()).toEqual(['chromium', 'libEGL.so', 'libGLESv2.so', 'libvk_swiftshader.so', 'libvulkan.so.1', 'vk_swiftshader_icd.json']);
  });

  it('keeps a complete unpacking and removes an incomplete one whole, so that it is unpacked again', async () => {
    dir = await mkdtemp(join(tmpdir(), 'cc-unpack-'));
    const names = unpackedFiles();
    for (const name of [...names, 'other.json']) await writeFile(join(dir, name), 'x');

    await removeIncompleteUnpacking(dir);
    expect((await readdir(dir)).sort()).toEqual([...names, 'other.json'].sort());

    await rm(join(dir, 'vk_swiftshader_icd.json'));
    await removeIncompleteUnpacking(dir);
    expect(await readdir(dir)).toEqual(['other.json']);
  });
});
