import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { OPERATOR_PASSWORD, type Harness } from '../harness.js';
import { axeFindings, noSidewaysScroll, PHONE, type WatchedPage } from './launcher.js';
import { showView, useControllerPage } from './controller-page.js';

// Functions passed to page.evaluate/waitForFunction run in the browser; the project's types have no DOM library.
declare const document: any;
declare const window: any;

/**
 * Issue 33, item 2: the page's session survives a reload (sessionStorage only), and a session ended elsewhere is
 * noticed on the page's next request, with what was typed kept behind a login dialog and saved after logging in
 * again. Real browser, simulated hardware, real clock.
 */

const RESULTS = join(import.meta.dirname, '..', '..', 'test-results');

let h: Harness;
let w: WatchedPage;
let page: Page;
useControllerPage('session', (parts) => ({ h, w, page } = parts));

const view = (path: string, heading: string) => showView(page, path, heading);

describe('the session of the page', () => {
  test('a reload keeps the session (sessionStorage, never a cookie or localStorage); a new tab asks to log in', async () => {
    await page.goto(`${h.controller.url}/`);
    await page.fill('#login-username', 'operator');
    await page.fill('#login-password', OPERATOR_PASSWORD);
    await page.click('main.login button[type=submit]');
    await page.waitForSelector('header.top');
    await view('settings/loadmanagement', 'Load Management');
    const id = await page.evaluate(() => JSON.parse(window.sessionStorage.getItem('cc-session')).id);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    await page.reload();
    await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Load Management');
    expect(await page.locator('header .who').innerText()).toBe('operator (Operator)');
    expect(await page.evaluate(() => JSON.stringify(window.localStorage))).not.toContain(id);
    expect((await page.context().cookies()).map((c) => c.value).join()).not.toContain(id);
    // The reload's first call asked the controller whether the session stands: it does, and it is the same one.
    expect((await h.http('GET', '/v1/session', { session: id })).status).toBe(200);

    const other = await page.context().newPage();
    await other.goto(`${h.controller.url}/`);
    await other.waitForSelector('main.login');
    await other.close();
  });

  test('ended by a login elsewhere: noticed on the next request (Save), the typed value kept and saved after logging in again', async () => {
    await view('settings/loadmanagement', 'Load Management');
    await page.fill('#f-MaxCurrent', '12');
    await h.login('operator'); // another login ends the page's session (spec 5 item 8)
    await page.click('form.settings button[type=submit]');
    await page.waitForSelector('[role=dialog]');
    expect(await page.locator('#logout-reason').innerText()).toMatch(/logged in elsewhere/);
    expect(await page.locator('[role=dialog]').innerText()).toContain('log in again as operator and save it');
    expect(await page.inputValue('#f-MaxCurrent')).toBe('12');
    expect(await page.evaluate(() => window.sessionStorage.getItem('cc-session'))).toBeNull();
    expect(h.controller.settings.get('MaxCurrent')).toBe(16);
    // The page behind is out of reach; the focus is in the dialog.
    expect(await page.evaluate(() => document.querySelector('.shell').inert)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('login-password');
    expect(await page.inputValue('#login-username')).toBe('operator');
    expect((await axeFindings(page)).join('\n')).toBe('');
    await page.setViewportSize(PHONE);
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.screenshot({ path: join(RESULTS, 'session-relogin-phone.png') });
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.fill('#login-password', OPERATOR_PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => !document.querySelector('[role=dialog]'));
    expect(await page.inputValue('#f-MaxCurrent')).toBe('12');
    await page.click('form.settings button[type=submit]');
    await page.waitForFunction(() => document.getElementById('settings-note')?.textContent === 'Saved.');
    expect(h.controller.settings.get('MaxCurrent')).toBe(12);
    expect(w.problems.filter((p) => !/401/.test(p))).toEqual([]);
  });

  test('another account in the dialog starts afresh; leaving it shows the plain login', async () => {
    await h.controller.accounts.set('tech', 'installer', 'tech-password-1');
    await view('settings/loadmanagement', 'Load Management');
    await page.fill('#f-MaxCurrent', '10');
    await h.login('operator');
    await page.evaluate(() => document.dispatchEvent(new window.Event('visibilitychange'))); // back to the tab
    await page.waitForSelector('[role=dialog]');
    await page.fill('#login-username', 'tech');
    await page.fill('#login-password', 'tech-password-1');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('header .who')?.textContent === 'tech (Installer)');
    await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Load Management');
    expect(await page.inputValue('#f-MaxCurrent')).toBe('12'); // read afresh, not operator's typing

    await h.login('operator');
    await page.evaluate(() => document.dispatchEvent(new window.Event('visibilitychange')));
    await page.waitForSelector('[role=dialog]');
    await page.getByRole('button', { name: 'Leave this page and log in as someone else' }).click();
    await page.waitForSelector('main.login');
  });
});
