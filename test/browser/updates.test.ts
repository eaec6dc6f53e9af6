import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import { newSigningKey } from '../../services/field-service/update-file.js';
import { createUpdateInstaller } from '../../services/field-service/updates.js';
import { ADD_METER, fakeUpdate, INITIAL, writeFakeTree } from '../field-service/fake-versions.js';
import { startHarness, type Harness } from '../harness.js';
import { axeFindings, noSidewaysScroll, openPage, PHONE, realClock, type WatchedPage } from './launcher.js';
import { documentationShot, showView, useControllerPage } from './controller-page.js';
import type { ManualClock } from '../clock.js';

// Runs in the browser; the project's types have no DOM library.
declare const document: any;

/**
 * Issue 32, the web interface's way in: the Updates view (role installer) shows the installed versions and the
 * history, uploads an update file with its progress and shows the result or the refusal's reason. Where the
 * controller does not run under the launcher, the view says so instead. Fails on the page before it (no such view).
 */

const INSTALLER = { username: 'fitter', password: 'fitter-password-1' };
const key = newSigningKey();
let root: string;
let switches = 0;
let good: Buffer;
let h: Harness;
let w: WatchedPage;
let page: Page;
useControllerPage('updates', (parts) => ({ h, w, page } = parts), {
  harness: async () => {
    root = await mkdtemp(join(tmpdir(), 'cc-updates-page-'));
    await writeFakeTree(root, '0.1.0', [INITIAL], 'good');
    await writeFile(join(root, 'keys'), `${Buffer.from(key.publicKey).toString('hex')}\n`);
    // Some MB of incompressible bytes: the upload reports progress more than once.
    await writeFakeTree(join(root, 'next'), '0.2.0', [INITIAL, ADD_METER], 'good', 4 * 1024 * 1024);
    good = Buffer.from(await fakeUpdate(join(root, 'next'), key.secretKey));
    return { updates: createUpdateInstaller({ root, trustedKeysFile: join(root, 'keys'), switchMode: () => 'wait-for-idle', switchTo: () => switches++ }) };
  },
  prepare: async (h) => {
    await h.controller.accounts.set(INSTALLER.username, 'installer', INSTALLER.password);
  },
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function logIn(p: Page, url: string, username: string, password: string): Promise<void> {
  await p.goto(`${url}/`);
  await p.fill('#login-username', username);
  await p.fill('#login-password', password);
  await p.click('main.login button[type=submit]');
  await p.waitForSelector('header.top');
}

const choose = (name: string, buffer: Buffer) => page.setInputFiles('#update-file', { name, mimeType: 'application/octet-stream', buffer });

describe('the Updates view', () => {
  test('shows the versions, refuses a tampered file with its reason, installs a good one with its progress, and lists the history', async () => {
    await logIn(page, h.controller.url, INSTALLER.username, INSTALLER.password);
    await showView(page, 'updates', 'Updates');
    expect(await page.locator('#updates-slots [data-slot="base"] dd').innerText()).toBe('0.1.0 (running)');
    await page.waitForSelector('#update-history-empty');

    const tampered = Buffer.from(good);
    tampered[tampered.length - 100]! ^= 0xff;
    await choose('tampered.ccupdate', tampered);
    await page.click('#update-install');
    const refused = page.locator('#update-result[role="alert"]');
    await refused.waitFor();
    expect(await refused.innerText()).toMatch(/^The controller refused: .*(payload|checksum|damaged)/i);
    await page.waitForSelector('#update-history-empty');
    expect(switches).toBe(0);

    await choose('charge-controller-0.2.0.ccupdate', good);
    await page.click('#update-install');
    const done = page.locator('#update-result[role="status"]');
    await page.waitForFunction(() => document.querySelector('#update-result')?.textContent.includes('0.2.0'));
    expect(await done.innerText()).toBe(
      'Version 0.2.0 is installed in Slot A. The controller switches to it at the first moment no charge runs; this page then asks for a new login.',
    );
    // The progress reached the end: the whole file went up.
    const progress = await page.locator('#update-progress').evaluate((p: any) => ({ value: p.value, max: p.max }));
    expect(progress).toEqual({ value: good.length, max: good.length });
    expect(await page.locator('#update-stage').innerText()).toContain('100');
    expect(switches).toBe(1);

    // The history and the waiting trial, as GET /v1/updates has them; another install waits for the trial.
    const row = page.locator('#update-history tr[data-event="installed"]');
    await row.waitFor();
    expect(await row.innerText()).toMatch(/Installed\s+0\.2\.0 \(Slot A\)\s+0\.1\.0/);
    expect(await page.locator('#updates-slots [data-slot="a"] dd').innerText()).toBe('0.2.0');
    expect(await page.locator('#updates-trial').innerText()).toContain('Version 0.2.0 is installed in Slot A and waits for its trial');
    expect(await page.locator('#update-install').isDisabled()).toBe(true);

    expect(await axeFindings(page)).toEqual([]);
    await documentationShot(page, 'updates');
    await page.setViewportSize(PHONE);
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(w.problems).toEqual([]);
  });

  test('where the controller does not run under the launcher, the view says so and offers no upload', async () => {
    const plain = await startHarness({ clock: realClock as unknown as ManualClock });
    const other = await openPage(page.context().browser()!, plain.controller.url);
    try {
      await plain.controller.accounts.set(INSTALLER.username, 'installer', INSTALLER.password);
      await logIn(other.page, plain.controller.url, INSTALLER.username, INSTALLER.password);
      await showView(other.page, 'updates', 'Updates');
      expect(await other.page.locator('#updates-unavailable').innerText()).toContain('launcher');
      expect(await other.page.locator('#update-file').count()).toBe(0);
      expect(other.problems).toEqual([]);
    } finally {
      await other.page.context().close();
      await plain.stop();
    }
  });
});
