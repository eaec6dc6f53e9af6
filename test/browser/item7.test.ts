import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import type { Harness } from '../harness.js';
import { until } from '../processes.js';
import { axeFindings, type WatchedPage } from './launcher.js';
import { showView, useControllerPage } from './controller-page.js';

declare const document: any;

/**
 * Issue 33, item 7, the rest (each failing on the page before it): a range's cause carries the unit; the
 * transactions table keeps tag ids and "kWh" on one line; From after To shows no stale list and says why.
 */

const TAG = '04A1B2C3D4E5F6A7B8C9';
const INSTALLER = { username: 'installer', password: 'installer-password-1' };

let h: Harness;
let w: WatchedPage;
let page: Page;
useControllerPage('item7', (parts) => ({ h, w, page } = parts), {
  prepare: async (h) => {
    await h.controller.whitelist.add([{ id: TAG, name: 'Long card' }]);
    await h.controller.accounts.set(INSTALLER.username, 'installer', INSTALLER.password);
  },
});

const view = (path: string, heading: string) => showView(page, path, heading);
/** How many lines a cell's text takes (distinct line boxes of its text). */
const linesOf = (selector: string) =>
  page.evaluate((s) => {
    const range = document.createRange();
    range.selectNodeContents(document.querySelector(s));
    return new Set([...range.getClientRects()].map((r: any) => Math.round(r.top))).size;
  }, selector);

describe('the rest of item 7', () => {
  test('a value out of range is refused with its unit', async () => {
    await page.goto(`${h.controller.url}/`);
    await page.fill('#login-username', INSTALLER.username);
    await page.fill('#login-password', INSTALLER.password);
    await page.click('main.login button[type=submit]');
    await page.waitForSelector('header.top');
    await view('settings/loadmanagement', 'Load Management');
    await page.fill('#f-MaxCurrent', '40');
    await page.click('form.settings button[type=submit]');
    await page.waitForSelector('#e-MaxCurrent');
    expect(await page.locator('#e-MaxCurrent').innerText()).toMatch(/^Must be from 6 to \d+ A$/);
  });

  test('the restart banner names the settings that wait for the restart', async () => {
    await view('settings/network', 'Network');
    await page.waitForSelector('#f-LanMode');
    await page.selectOption('#f-LanMode', { label: 'Static' });
    await page.click('form.settings button[type=submit]');
    await page.waitForSelector('#reboot-pending');
    expect(await page.locator('#reboot-pending').innerText()).toBe('Waiting for the restart: IP address assignment.');
    expect((await axeFindings(page)).join('\n')).toBe('');
  });

  test('a tag added by hand gets a type (RFID preselected)', async () => {
    await view('settings/whitelists', 'Whitelists');
    await page.getByRole('button', { name: 'Add a tag', exact: true }).click();
    expect(await page.inputValue('#tag-type')).toBe('RFID');
    await page.fill('#tag-id', '04C0FFEE');
    await page.click('form.subform button[type=submit]');
    await page.waitForSelector('#tags tr[data-id="04C0FFEE"]');
    expect(await h.controller.whitelist.find('04C0FFEE')).toMatchObject({ tagType: 'RFID' });
  });

  test('the transactions table keeps tag ids and kWh on one line; From after To shows nothing stale and says why', async () => {
    await h.sim('plug');
    await h.sim('tag', { id: TAG });
    await h.sim('charge');
    await until('charging', () => h.controller.charging.coreState()?.system.systemState === 'charging');
    await h.sim('tag', { id: TAG });
    await h.sim('unplug');
    await view('transactions', 'Transactions');
    await page.waitForSelector('#transactions tbody tr');
    // A width where the table is a table and tight.
    await page.setViewportSize({ width: 800, height: 900 });
    expect(await linesOf('#transactions tbody td.mono')).toBe(1);
    const energyCell = '#transactions tbody td:nth-child(4)';
    expect(await page.locator(energyCell).innerText()).toMatch(/kWh$/);
    expect(await linesOf(energyCell)).toBe(1);

    await page.fill('#tx-from', '2030-01-02');
    await page.fill('#tx-to', '2030-01-01');
    await page.click('form.range button[type=submit]');
    await page.waitForSelector('#transactions-note');
    expect(await page.locator('#transactions').count()).toBe(0);
    expect(await page.locator('#tx-count').count()).toBe(0);
    expect(await page.locator('#transactions-note').innerText()).toMatch(/nothing is shown/);
    expect((await axeFindings(page)).join('\n')).toBe('');
    expect(w.problems).toEqual([]);
  });
});
