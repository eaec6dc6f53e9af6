import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { OPERATOR_PASSWORD, type Harness } from '../harness.js';
import { until } from '../processes.js';
import { axeFindings, type WatchedPage } from './launcher.js';
import { showView, useControllerPage } from './controller-page.js';

// Functions passed to page.evaluate/waitForFunction run in the browser; the project's types have no DOM library.
declare const document: any;
declare const window: any;

/**
 * Issue 33, item 7 (the smaller things), each failing on the page before it: the connector's words without doubled
 * brackets; a refused pairing said once, in words, without the state's internal name; after "Add this tag" the
 * pairing box says it was added (not "already known"); no Save where the role can change nothing.
 */

const TAG = '04B0B0B0';
const VIEWER = { username: 'viewer', password: 'viewer-password-1' };

let h: Harness;
let w: WatchedPage;
let page: Page;
useControllerPage('smaller', (parts) => ({ h, w, page } = parts), {
  prepare: async (h) => {
    await h.controller.accounts.set(VIEWER.username, 'user', VIEWER.password);
  },
});

async function logIn(who: { username: string; password: string }): Promise<void> {
  // A fresh start of the tab (the session a tab keeps over a reload is the subject of session.test.ts).
  if (page.url().startsWith(h.controller.url)) await page.evaluate(() => window.sessionStorage.clear());
  await page.goto(`${h.controller.url}/`);
  await page.fill('#login-username', who.username);
  await page.fill('#login-password', who.password);
  await page.click('main.login button[type=submit]');
  await page.waitForSelector('header.top');
}
const view = (path: string, heading: string) => showView(page, path, heading);
const button = (name: string) => page.getByRole('button', { name, exact: true });

describe('smaller things of the page', () => {
  test('the connector in words has no doubled brackets; a refused pairing is said once, in words', async () => {
    await logIn({ username: 'operator', password: OPERATOR_PASSWORD });
    await h.sim('plug');
    await page.waitForFunction(() => document.getElementById('system-state')?.dataset.state === 'wait_for_auth');
    expect(await page.locator('#connection-state').innerText()).toBe('Vehicle connected (type 2), control pilot state B');

    await view('settings/whitelists', 'Whitelists');
    await button('Start pairing').click();
    await page.waitForSelector('#pairing-refused');
    const refused = await page.locator('#pairing-refused').innerText();
    expect(refused).toBe(
      'Pairing could not start: it needs the charge point to be idle (no vehicle, no authorization waiting). Now: Waiting for authorization: present a tag.',
    );
    expect(await page.locator('#pairing').innerText()).not.toMatch(/wait_for_auth|could not start[^]*could not start/);
    await h.sim('unplug');
  });

  test('after "Add this tag" the pairing box says the tag was added, not that it was already known', async () => {
    await until('idle after unplugging', () => h.controller.charging.coreState()?.system.systemState === 'idle');
    await button('Start pairing').click();
    await page.waitForSelector('#pairing progress');
    await h.sim('tag', { id: TAG });
    await page.waitForSelector('#paired-tag');
    await button('Add this tag').click();
    await page.waitForFunction(() => document.activeElement.id === 'tag-name');
    await page.fill('#tag-name', 'Green card');
    await page.click('form.subform button[type=submit]');
    await page.waitForSelector(`#tags tr[data-id="${TAG}"]`);
    await page.waitForSelector('#pairing-known');
    expect(await page.locator('#pairing-known').innerText()).toBe('Added to the whitelist as Green card.');
    expect((await axeFindings(page)).join('\n')).toBe('');
  });

  test('no Save where the role can change nothing; the page says so', async () => {
    const session = await h.login(VIEWER.username, VIEWER.password);
    const groups = (await h.http('GET', '/v1/settings', { session })).json.groups as any[];
    const fixed = groups.find(
      (g) => g.key !== 'whitelists' && g.sub_groups.every((sg: any) => sg.fields.every((f: any) => f.mode === 'ro' || f.isNotAuthorized === 1)),
    );
    expect(fixed).toBeDefined();
    const editable = groups.find((g) => g.sub_groups.some((sg: any) => sg.fields.some((f: any) => f.mode === 'rw' && f.isNotAuthorized !== 1)));
    await logIn(VIEWER);
    await view(`settings/${fixed.key}`, fixed.label);
    await page.waitForSelector('#settings-readonly');
    expect(await page.locator('form.settings button[type=submit]').count()).toBe(0);
    expect(await page.locator('#settings-readonly').innerText()).toBe('Nothing on this page can be changed with your role: no Save.');
    // Where something can be changed, Save is there.
    await view(`settings/${editable.key}`, editable.label);
    await page.waitForSelector('form.settings button[type=submit]');
    expect(w.problems).toEqual([]);
  });
});
