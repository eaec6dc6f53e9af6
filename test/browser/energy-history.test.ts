import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { energyDays } from '../../db/schema.js';
import { localDay } from '../../services/energy/today.js';
import { OPERATOR_PASSWORD, type Harness } from '../harness.js';
import { txRecord } from '../transactions.js';
import { axeFindings, noSidewaysScroll, type WatchedPage } from './launcher.js';
import { documentationShot, showView, useControllerPage } from './controller-page.js';

/**
 * Issue 33, the energy chart: energy per day or month (GET /v1/energy/history) as bars with the range's total, the
 * lifetime energy and, where energy management counted it, the share from the sun and from the grid. Fails on the
 * page before it (no such chart).
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;
let h: Harness;
let w: WatchedPage;
let page: Page;
useControllerPage('energy-history', (parts) => ({ h, w, page } = parts), {
  prepare: async (h) => {
    const tx = h.controller.transactions;
    const add = async (startedAt: number, wh: number) => {
      const t = txRecord({ startedAt, meterWh: 1_000 });
      await tx.begin(t);
      await tx.finish({ ...t, meterLastWh: 1_000 + wh, meterLastAt: startedAt + HOUR }, { reason: 'EVDisconnected', at: startedAt + HOUR });
    };
    const now = Date.now();
    await add(now - 2 * DAY, 6_000);
    await add(now - 3 * HOUR, 4_000);
    await add(now - 400 * DAY, 20_000); // counted in the lifetime only
    await h.controller.database.db.insert(energyDays).values([{ day: localDay(now - 2 * DAY), solarWh: 1_500, gridWh: 4_500 }]);
  },
});

describe('energy by day and month', () => {
  test('bars per day with the total, the lifetime energy and the solar and grid share; by month', async () => {
    await page.goto(`${h.controller.url}/`);
    await page.fill('#login-username', 'operator');
    await page.fill('#login-password', OPERATOR_PASSWORD);
    await page.click('main.login button[type=submit]');
    await page.waitForSelector('header.top');
    await showView(page, 'transactions', 'Transactions');
    await page.waitForSelector('#history-chart canvas');
    expect(await page.locator('#history-chart').getAttribute('data-periods')).toBe('31');
    expect(await page.locator('#history-total').innerText()).toBe('10.00 kWh');
    expect(await page.locator('#history-lifetime').innerText()).toBe('30.00 kWh');
    expect(await page.locator('#history-solar').innerText()).toBe('1.50 kWh (25 %)');
    expect(await page.locator('#history-grid').innerText()).toBe('4.50 kWh (75 %)');
    expect(await page.locator('#history-chart').getAttribute('aria-label')).toMatch(/10\.00 kWh in all/);

    await page.selectOption('#history-by', 'month');
    await page.waitForSelector('#history-chart[data-periods="12"] canvas');
    expect(await page.locator('#history-total').innerText()).toBe('10.00 kWh');
    await documentationShot(page, 'energy-history');
    expect((await axeFindings(page)).join('\n')).toBe('');
    await page.setViewportSize({ width: 390, height: 800 });
    expect(await noSidewaysScroll(page)).toBe(true);
    expect(w.problems).toEqual([]);
  });
});
