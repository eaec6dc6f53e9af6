import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { OPERATOR_PASSWORD, type Harness } from '../harness.js';
import { until } from '../processes.js';
import { txRecord } from '../transactions.js';
import { axeFindings, noSidewaysScroll, type WatchedPage } from './launcher.js';
import { documentationShot, showView, useControllerPage } from './controller-page.js';

declare const document: any;

/**
 * Issue 33, history kept by the controller in the page: the dashboard's chart starts at the transaction's start
 * after a reload (the controller's curve, then the page's samples), and the transactions view draws the curve of
 * any past session. Fails on the page before it (the chart began with the page's first sample; no curve button).
 */

const TAG = '04C0FFEE';
let h: Harness;
let w: WatchedPage;
let page: Page;
/** A past transaction: 3 Wh every 10 s for 5 minutes (1,080 W). */
const PAST = txRecord({ startedAt: Date.UTC(2026, 0, 5, 9), meterWh: 1_000, tagId: TAG });
useControllerPage('curves', (parts) => ({ h, w, page } = parts), {
  prepare: async (h) => {
    await h.controller.whitelist.add([{ id: TAG, name: 'Company car' }]);
    const tx = h.controller.transactions;
    await tx.begin(PAST);
    for (let i = 1; i <= 30; i++) await tx.checkpoint({ ...PAST, meterLastWh: 1_000 + 3 * i, meterLastAt: PAST.startedAt + i * 10_000 });
    const end = PAST.startedAt + 300_000;
    await tx.finish({ ...PAST, meterLastWh: 1_090, meterLastAt: end }, { reason: 'EVDisconnected', at: end });
  },
});

const chartFirst = () => page.locator('#power-chart').getAttribute('data-first');

describe('charts from the controller’s curve', () => {
  test('after a reload the dashboard’s chart starts at the transaction’s start', async () => {
    await page.goto(`${h.controller.url}/`);
    await page.fill('#login-username', 'operator');
    await page.fill('#login-password', OPERATOR_PASSWORD);
    await page.click('main.login button[type=submit]');
    await page.waitForSelector('header.top');
    await h.sim('plug');
    await h.sim('tag', { id: TAG });
    await h.sim('charge');
    await until('charging', () => h.controller.charging.coreState()?.system.systemState === 'charging');
    const start = h.controller.charging.coreState()!.transaction!.startedAt;
    // The page reloads well after the start: its own first sample would be seconds later.
    await until('3 s charged', () => Date.now() - start >= 3_000);
    await page.reload();
    await page.waitForSelector('#power-chart[data-first]');
    await page.waitForFunction(() => Number(document.querySelector('#power-chart')?.dataset.points) >= 2);
    expect(Math.abs(Date.parse((await chartFirst())!) - start)).toBeLessThan(1_000);
    await h.sim('tag', { id: TAG });
    await h.sim('unplug');
  });

  test('the transactions view draws the curve of a past session', async () => {
    await showView(page, 'transactions', 'Transactions');
    await page.waitForSelector('#transactions tbody tr');
    await page.locator('#transactions tbody tr').first().getByRole('button').click();
    await page.waitForSelector('#curve-chart canvas');
    expect(await page.locator('#curve-chart').getAttribute('data-points')).toBe('31');
    expect(await page.locator('#curve-chart').getAttribute('data-first')).toBe(new Date(PAST.startedAt).toISOString());
    expect(await page.locator('#curve-chart').getAttribute('aria-label')).toMatch(/31 points, highest 1\.08 kW/);
    await documentationShot(page, 'transaction-curve');
    expect((await axeFindings(page)).join('\n')).toBe('');
    await page.setViewportSize({ width: 390, height: 800 });
    expect(await noSidewaysScroll(page)).toBe(true);
    expect(w.problems).toEqual([]);
  });
});
