import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { realClock } from '../../services/core/clock.js';
import type { ManualClock } from '../clock.js';
import { startHarness, type Harness } from '../harness.js';
import { axeFindings, launchBrowser, openPage } from './launcher.js';

// Functions passed to page.waitForFunction/$$eval run in the browser; the project's types have no DOM library.
declare const document: any;

/**
 * /docs in a real browser: Swagger UI from the controller renders the API document under the page's
 * Content-Security-Policy, with no request to another origin, no script error and no CSP violation.
 */

let h: Harness;
let browser: Browser;

beforeAll(async () => {
  h = await startHarness({ clock: realClock as unknown as ManualClock });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

test('Swagger UI shows every group of the document and an operation of each, offline and within the CSP', async () => {
  const { page, problems } = await openPage(browser, h.controller.url);
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} for ${r.url()}`);
  });
  await page.goto(`${h.controller.url}/docs`);
  await page.waitForSelector('.opblock-tag', { timeout: 15_000 });
  expect(await page.$eval('.info .title', (e: any) => e.textContent)).toContain('Charge controller API');
  const tags = await page.$$eval('.opblock-tag', (es: any[]) => es.map((e) => e.getAttribute('data-tag')));
  expect(tags).toEqual(expect.arrayContaining(['Authentication', 'Settings', 'Users', 'Whitelist', 'State', 'Accounts', 'Simulator', 'Web interface']));
  // Open the Users group: its operations appear with their paths.
  await page.click('.opblock-tag[data-tag="Users"]');
  await page.waitForSelector('.opblock-summary-path[data-path="/v1/users/{userId}"]');
  await page.click('.opblock-get .opblock-summary-path[data-path="/v1/users/{userId}"]');
  await page.waitForFunction(() => document.querySelector('.opblock.is-open .responses-table')?.textContent.includes('404'));
  // No serious or critical accessibility finding (colour contrast included), with a group open.
  expect((await axeFindings(page)).filter((f) => f.includes('color-contrast'))).toEqual([]);
  expect(problems).toEqual([]);
}, 60_000);
