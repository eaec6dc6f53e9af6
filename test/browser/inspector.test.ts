import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Clock } from '../../services/controller.js';
import type { ManualClock } from '../clock.js';
import { startHarness, type Harness } from '../harness.js';
import { launchBrowser, openPage } from './launcher.js';

// Functions passed to page.waitForFunction/$$eval run in the browser; the project's types have no DOM library.
declare const document: any;

/**
 * The inspector page in a real browser (test/browser/launcher.ts: Chromium from npm, or a system one). The
 * controller runs on the real clock, as in use; the test waits for conditions (with time limits), never for fixed
 * times. Run alone: `npm run test:browser`.
 */

const SCREENSHOT = join(import.meta.dirname, '..', '..', 'test-results', 'inspector.png');
const ENGINEER_PASSWORD = 'engineer-secret-1';
const TAG = '04A1B2C3';
const WAIT_MS = 15_000;

const realClock: Clock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
  now: () => Date.now(),
};

let h: Harness;
let browser: Browser;
let page: Page;
let problems: string[];

beforeAll(async () => {
  // The harness's clock type is the manual clock; here the controller runs on the real one (no step() is used).
  h = await startHarness({ clock: realClock as unknown as ManualClock });
  await h.controller.accounts.set('engineer', 'installer', ENGINEER_PASSWORD);
  const session = await h.login('engineer', ENGINEER_PASSWORD);
  const added = await h.http('POST', '/v1/whitelist', { session, body: { type: 'local', command: 'add', tags: [{ id: TAG }] } });
  if (added.status !== 200) throw new Error(`whitelist setup failed: ${added.text}`);
  // Phones are answered in RFID/NFC hybrid mode only.
  const hybrid = await h.http('PATCH', '/v1/settings', { session, body: { params: [{ key: 'RFIDMode', value: 1 }] } });
  if (hybrid.status !== 200) throw new Error(`RFID Mode setting refused: ${hybrid.text}`);

  browser = await launchBrowser();
  ({ page, problems } = await openPage(browser, h.controller.url, { viewport: { width: 1600, height: 1400 } }));
  page.setDefaultTimeout(WAIT_MS);
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} for ${r.url()}`);
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

/** Waits until the chart of `actor` highlights `state` (the SVG element whose id is the state path has class active). */
async function highlighted(actor: string, state: string): Promise<void> {
  await page.waitForFunction(
    ([a, s]) => {
      const section = document.querySelector(`section[data-actor="${a}"]`);
      const node = section && [...section.querySelectorAll('svg g.active')].find((g) => g.id === s);
      return Boolean(node) && section.dataset.states!.split(' ').includes(s!);
    },
    [actor, state],
    { timeout: WAIT_MS },
  );
}

const activeStates = (actor: string) =>
  page.$$eval(`section[data-actor="${actor}"] svg g.active`, (gs) => gs.map((g) => g.id).sort());

test('log in on the page, plug in, present a tag: the highlighted states follow the charge cycle', async () => {
  await page.goto(`${h.controller.url}/inspect`);
  await page.fill('#username', 'engineer');
  await page.fill('#password', ENGINEER_PASSWORD);
  await page.click('#login-button');
  await page.waitForSelector('#app:not([hidden])');
  await page.waitForSelector('#login', { state: 'hidden' });
  await page.waitForFunction(() => document.getElementById('status')!.textContent!.startsWith('Live'));

  await highlighted('chargeCycle', 'operative.available.idle');
  expect(await activeStates('chargeCycle')).toEqual(['operative', 'operative.available', 'operative.available.idle']);
  await highlighted('pairing', 'off');
  await highlighted('session', 'login.active');

  await page.click('button[data-sim="plug"]');
  await highlighted('chargeCycle', 'operative.session.waitForAuth');
  expect(await activeStates('chargeCycle')).toEqual(['operative', 'operative.session', 'operative.session.waitForAuth']);

  await page.fill('#sim-tag', TAG);
  await page.click('button[data-sim="present tag"]');
  await highlighted('chargeCycle', 'operative.session.transaction.ready');
  await page.waitForFunction((tag) => document.querySelector('section[data-actor="chargeCycle"] table')!.textContent!.includes(tag), TAG);

  await page.click('button[data-sim="charge"]');
  await highlighted('chargeCycle', 'operative.session.transaction.charging');
  expect(await activeStates('chargeCycle')).toEqual([
    'operative',
    'operative.session',
    'operative.session.transaction',
    'operative.session.transaction.charging',
  ]);
  // The transition just taken is drawn too, and the events list shows what happened.
  expect(await page.$$eval('section[data-actor="chargeCycle"] svg g.edge.taken', (gs) => gs.length)).toBeGreaterThan(0);
  await page.waitForFunction(() => {
    const types = [...document.querySelectorAll('#events .type')].map((e) => e.textContent);
    return types.includes('TAG') && types.includes('PILOT');
  });

  // A phone's request over NFC: the NFC link's chart follows.
  await highlighted('nfcLink', 'checking');
  await page.click('button[data-sim="phone request"]');
  await page.waitForFunction(() => document.getElementById('sim-result').textContent === 'phone request: done');
  await highlighted('nfcLink', 'established.exchange.idle');

  await mkdir(join(SCREENSHOT, '..'), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  expect(existsSync(SCREENSHOT)).toBe(true);

  // Nothing loaded from elsewhere, no script error, no CSP violation.
  expect(problems).toEqual([]);
}, 90_000);
