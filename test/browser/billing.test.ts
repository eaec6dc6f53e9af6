import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { OPERATOR_PASSWORD, type Harness } from '../harness.js';
import { until } from '../processes.js';
import { axeFindings, noSidewaysScroll, type WatchedPage } from './launcher.js';
import { documentationShot, showView, useControllerPage } from './controller-page.js';

declare const document: any;

/**
 * Issue 33, billing and time: the controller's time zone is a setting shown with the controller's time, live and
 * with its source; the page shows times in that zone; the CSV carries the tag's alias, the user's name, the meter
 * at start and stop, the stop reason and times in the zone with their offset, in a file named by its days. Fails
 * on the page before it (no clock, no TimeZone, the old columns).
 */

const TAG = '04C0FFEE';
const ZONE = 'America/New_York';
let h: Harness;
let w: WatchedPage;
let page: Page;
useControllerPage('billing', (parts) => ({ h, w, page } = parts), {
  prepare: async (h) => {
    const user = await h.controller.users.create('Dana Driver');
    await h.controller.whitelist.add([{ id: TAG, name: 'Company car', userid: user.userId }]);
  },
});

describe('billing-grade CSV and the controller’s time', () => {
  test('the System view shows the controller’s time ticking, its zone and source; the zone is a setting checked by name', async () => {
    await page.goto(`${h.controller.url}/`);
    await page.fill('#login-username', 'operator');
    await page.fill('#login-password', OPERATOR_PASSWORD);
    await page.click('main.login button[type=submit]');
    await page.waitForSelector('header.top');
    await showView(page, 'settings/system', 'System');
    await page.waitForSelector('#f-TimeZone');
    await page.fill('#f-TimeZone', 'Mars/Olympus_Mons');
    await page.click('form.settings button[type=submit]');
    await page.waitForSelector('#e-TimeZone');
    expect(await page.locator('#e-TimeZone').innerText()).toMatch(/IANA/);

    await page.fill('#f-TimeZone', ZONE);
    await page.click('form.settings button[type=submit]');
    await page.waitForFunction((z) => document.querySelector('#clock-zone')?.textContent.startsWith(z), ZONE);
    expect(await page.locator('#clock-zone').innerText()).toMatch(/^America\/New_York \(UTC-0[45]:00\)$/);
    expect(await page.locator('#clock-source').innerText()).toMatch(/system clock|NTP/);
    const first = await page.locator('#clock-time').innerText();
    // Live: the shown time moves on without another answer.
    await page.waitForFunction((t) => document.querySelector('#clock-time')?.textContent !== t, first);
    // The controller's time as read with the settings: readable, not a raw ISO string (issue 33 item 7).
    expect(await page.inputValue('#f-ControllerTime_custom')).toMatch(/^\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}:\d{2} UTC$/);
    await documentationShot(page, 'system-time');
    expect((await axeFindings(page)).join('\n')).toBe('');
    await page.setViewportSize({ width: 390, height: 800 });
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('the list shows times in that zone; the CSV has alias, user, meter start and stop, stop reason, offset, and days in its name', async () => {
    await h.sim('plug');
    await h.sim('tag', { id: TAG });
    await h.sim('charge');
    await until('charging', () => h.controller.charging.coreState()?.system.systemState === 'charging');
    await h.sim('tag', { id: TAG });
    await h.sim('unplug');
    await until('completed', async () => (await h.controller.transactions.listCompleted()).length === 1);
    const [tx] = await h.controller.transactions.listCompleted();
    await showView(page, 'transactions', 'Transactions');
    await page.waitForSelector('#transactions tbody tr');
    const shown = new Intl.DateTimeFormat('en-GB', { dateStyle: 'short', timeStyle: 'medium', timeZone: ZONE }).format(new Date(tx!.startTransaction));
    expect(await page.locator('#transactions tbody td').first().innerText()).toBe(shown);

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date(tx!.startTransaction));
    expect(download.suggestedFilename()).toBe(`transactions-${day}-to-${day}.csv`);
    const lines = (await readFile((await download.path())!, 'utf8')).trim().split('\r\n');
    expect(lines[0]!.split(',')).toEqual([
      ...['transactionId', 'startTransaction', 'endTransaction', 'timeZone', 'durationSeconds', 'meterStartWh', 'meterStopWh'],
      ...['consumptionWh', 'maxPowerW', 'stopReason', 'tagId', 'tagAlias', 'userId', 'userName'],
    ]);
    const cells = lines[1]!.split(',');
    expect(cells[0]).toBe(tx!.transactionId);
    expect(cells[1]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-0[45]:00$/);
    expect(Date.parse(cells[1]!)).toBe(Math.floor(Date.parse(tx!.startTransaction) / 1000) * 1000);
    expect(cells[3]).toBe(ZONE);
    expect(Number(cells[6]) - Number(cells[5])).toBe(tx!.consumption);
    expect(cells[9]).toBe(tx!.stopReason);
    expect(cells.slice(10, 12)).toEqual([TAG, 'Company car']);
    expect(cells[13]).toBe('Dana Driver');
    expect(w.problems).toEqual([]);
  });
});
