import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ManualClock } from '../clock.js';
import { startHarness, type Harness } from '../harness.js';
import { axeFindings, launchBrowser, noSidewaysScroll, openPage, PHONE, realClock } from './launcher.js';

// Functions passed to page.waitForFunction/$$eval run in the browser; the project's types have no DOM library.
declare const document: any;

/**
 * The inspector page in a real browser (test/browser/launcher.ts: Chromium from npm, or a system one). The
 * controller runs on the real clock, as in use; the test waits for conditions (with time limits), never for fixed
 * times. Run alone: `npm run test:browser`.
 */

const RESULTS = join(import.meta.dirname, '..', '..', 'test-results');
const SCREENSHOT = join(RESULTS, 'inspector.png');
const ENGINEER_PASSWORD = 'engineer-secret-1';
const TAG = '04A1B2C3';
const WAIT_MS = 15_000;

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

const activeStates = (actor: string) => page.$$eval(`section[data-actor="${actor}"] svg g.active`, (gs) => gs.map((g) => g.id).sort());

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
  await highlighted('chargeCycle', 'operative.session.transaction.underLoad.charging');
  expect(await activeStates('chargeCycle')).toEqual([
    'operative',
    'operative.session',
    'operative.session.transaction',
    'operative.session.transaction.underLoad',
    'operative.session.transaction.underLoad.charging',
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

/** The chart box of an actor: its scale (screen pixels a unit) and the centre of the box and of a state, on screen. */
async function chartView(actor: string, state?: string) {
  return page.evaluate(
    ([a, s]) => {
      const section = document.querySelector(`section[data-actor="${a}"]`);
      const box = section.querySelector('.chart');
      const r = box.getBoundingClientRect();
      const node = s ? [...section.querySelectorAll('svg g')].find((g: any) => g.id === s) : undefined;
      const n = node?.getBoundingClientRect();
      return {
        scale: Number(box.dataset.scale),
        viewBox: box.querySelector('svg').getAttribute('viewBox'),
        box: { x: r.left + r.width / 2, y: r.top + r.height / 2, width: r.width, height: r.height, right: r.right },
        node: n && { x: n.left + n.width / 2, y: n.top + n.height / 2, width: n.width },
      };
    },
    [actor, state],
  );
}

test('commissioning view: the summary strip, the latest transition, zoom and pan, "go to the active state", events by actor', async () => {
  // Still charging from the test before (same page and controller).
  await page.waitForFunction(() => document.getElementById('sum-state')!.textContent === 'Charging');
  await page.waitForFunction(() => /^[1-9]\d*\.\d\d kW$/.test(document.getElementById('sum-power')!.textContent!));
  const summary = await page.evaluate(() =>
    Object.fromEntries(
      ['sum-state', 'sum-state-detail', 'sum-amps', 'sum-cp', 'sum-energy', 'sum-tag', 'sum-messages'].map((id) => [
        id,
        document.getElementById(id)!.textContent,
      ]),
    ),
  );
  expect(summary).toEqual({
    'sum-state': 'Charging',
    'sum-state-detail': 'charging · charging',
    'sum-amps': '16 A',
    'sum-cp': 'CP C · contactor closed',
    'sum-energy': expect.stringMatching(/^\d+\.\d\d kWh$/),
    'sum-tag': TAG,
    'sum-messages': 'none',
  });
  // The charge cycle comes first, above every other actor.
  const order = await page.$$eval('section.actor', (sections) => sections.map((s) => s.dataset.actor));
  expect(order[0]).toBe('chargeCycle');

  // The step that started charging: its edge is drawn highlighted and named.
  const latest = await page.textContent('section[data-actor="chargeCycle"] .latest');
  expect(latest).toBe('Latest step: always [requesting] (ready → underLoad)');
  const taken = await page.$$eval('section[data-actor="chargeCycle"] svg g.edge.taken', (gs) => gs.map((g) => g.querySelector('text')?.textContent));
  expect(taken).toEqual(['always [requesting]']);

  // Fit shows the whole chart; zoom in and out by the buttons, about the centre.
  const chargeCycle = 'section[data-actor="chargeCycle"]';
  await page.click(`${chargeCycle} button[data-zoom="fit"]`);
  const fitted = await chartView('chargeCycle');
  await page.click(`${chargeCycle} button[data-zoom="in"]`);
  expect((await chartView('chargeCycle')).scale).toBeCloseTo(fitted.scale * 1.4, 2);
  await page.click(`${chargeCycle} button[data-zoom="out"]`);
  expect((await chartView('chargeCycle')).scale).toBeCloseTo(fitted.scale, 2);
  // The wheel zooms about the pointer; dragging pans.
  await page.mouse.move(fitted.box.x, fitted.box.y);
  await page.mouse.wheel(0, -300);
  await page.waitForFunction((s) => Number(document.querySelector('section[data-actor="chargeCycle"] .chart').dataset.scale) > s * 1.5, fitted.scale);
  const zoomed = await chartView('chargeCycle', 'operative.session.transaction.underLoad.charging');
  await page.mouse.move(fitted.box.x, fitted.box.y);
  await page.mouse.down();
  await page.mouse.move(fitted.box.x - 100, fitted.box.y - 50, { steps: 4 });
  await page.mouse.up();
  const panned = await chartView('chargeCycle', 'operative.session.transaction.underLoad.charging');
  expect(panned.scale).toBe(zoomed.scale);
  expect(panned.node!.x - zoomed.node!.x).toBeCloseTo(-100, 0);
  expect(panned.node!.y - zoomed.node!.y).toBeCloseTo(-50, 0);

  // "Go to the active state": the charging state in the middle of the box, readable (at least 1 px a unit at this size).
  await page.click(`${chargeCycle} button[data-zoom="active"]`);
  const active = await chartView('chargeCycle', 'operative.session.transaction.underLoad.charging');
  expect(Math.abs(active.node!.x - active.box.x)).toBeLessThan(2);
  expect(Math.abs(active.node!.y - active.box.y)).toBeLessThan(2);
  expect(active.scale).toBeGreaterThanOrEqual(1);
  expect(active.node!.width).toBeLessThan(active.box.width);

  // Events by actor: only the NFC link's, then all again.
  const all = await page.locator('#events li:visible').count();
  await page.selectOption('#event-filter', 'nfcLink');
  const shown = await page.$$eval('#events li', (items) => items.filter((i) => !i.hidden).map((i) => i.dataset.actor));
  expect(shown.length).toBeGreaterThan(0);
  expect(new Set(shown)).toEqual(new Set(['nfcLink']));
  expect(shown.length).toBeLessThan(all);
  await page.selectOption('#event-filter', '');
  expect(await page.locator('#events li:visible').count()).toBe(all);

  await page.click(`${chargeCycle} button[data-zoom="fit"]`);
  expect((await axeFindings(page)).join('\n')).toBe('');
  await page.screenshot({ path: join(RESULTS, 'inspector-desktop.png') });
  expect(problems).toEqual([]);
}, 90_000);

test('on a phone: one column, nothing wider than the screen, the charge cycle around its active state', async () => {
  const phone = await openPage(browser, h.controller.url, { viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  try {
    const p = phone.page;
    p.setDefaultTimeout(WAIT_MS);
    await p.goto(`${h.controller.url}/inspect`);
    await p.fill('#username', 'engineer');
    await p.fill('#password', ENGINEER_PASSWORD);
    await p.click('#login-button');
    await p.waitForFunction(() => document.getElementById('status')!.textContent!.startsWith('Live'));
    await p.waitForFunction(() => document.getElementById('sum-state')!.textContent === 'Charging');
    await p.waitForFunction(() => document.querySelector('section[data-actor="chargeCycle"] g.node.active') !== null);
    expect(await noSidewaysScroll(p)).toBe(true);
    // Every control can be reached without scrolling sideways.
    const outside = await p.$$eval(
      'button, input, select',
      (els, width) => els.filter((e) => e.offsetParent !== null && e.getBoundingClientRect().right > width).map((e) => e.id || e.textContent),
      PHONE.width,
    );
    expect(outside).toEqual([]);
    // The chart opens around the active state (the whole chart would be unreadable at this width).
    const view = await p.evaluate(() => {
      const section = document.querySelector('section[data-actor="chargeCycle"]');
      const box = section.querySelector('.chart').getBoundingClientRect();
      const node = [...section.querySelectorAll('svg g.node')]
        .find((g: any) => g.id === 'operative.session.transaction.underLoad.charging')
        .getBoundingClientRect();
      return {
        box: { left: box.left, right: box.right, top: box.top, bottom: box.bottom },
        node: { left: node.left, right: node.right, top: node.top, bottom: node.bottom },
      };
    });
    expect(view.box.right).toBeLessThanOrEqual(PHONE.width);
    expect(view.node.left).toBeGreaterThanOrEqual(view.box.left);
    expect(view.node.right).toBeLessThanOrEqual(view.box.right);
    expect(view.node.top).toBeGreaterThanOrEqual(view.box.top);
    expect(view.node.bottom).toBeLessThanOrEqual(view.box.bottom);
    expect((await axeFindings(p)).join('\n')).toBe('');
    await p.screenshot({ path: join(RESULTS, 'inspector-phone.png') });
    expect(phone.problems).toEqual([]);
  } finally {
    await phone.page.context().close();
  }
}, 90_000);
