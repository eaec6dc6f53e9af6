import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { OPERATOR_PASSWORD, type Harness } from '../harness.js';
import { until } from '../processes.js';
import { axeFindings, noSidewaysScroll, PHONE, type WatchedPage } from './launcher.js';
import { documentationShot, useControllerPage } from './controller-page.js';

// Functions passed to page.evaluate/waitForFunction run in the browser; the project's types have no DOM library.
declare const document: any;

/**
 * Issue 33, item 1: the running charge run from the dashboard (views/charge-controls.js over /v1/charge): pause and
 * resume, the current slider, stop (asked first), a refusal in words, and a session of role user that may only watch
 * another's charge. Real browser, simulated hardware, real clock (waits for conditions, never for a time).
 */

const RESULTS = join(import.meta.dirname, '..', '..', 'test-results');
const ALICE_TAG = '04A1B2C3';
const OTHER_TAG = '0A0B0C0D';
const BOB = { username: 'Bob', password: 'bob-password-1' };

let h: Harness;
let w: WatchedPage;
let page: Page;
useControllerPage('charge', (parts) => ({ h, w, page } = parts), {
  prepare: async (h) => {
    await h.controller.accounts.set(BOB.username, 'user', BOB.password);
    const session = await h.login();
    const alice = (await h.http('POST', '/v1/users', { session, body: { userName: 'Alice' } })).json.userId;
    const added = await h.http('POST', '/v1/whitelist', {
      session,
      body: {
        type: 'local',
        command: 'add',
        tags: [
          { id: ALICE_TAG, userid: alice },
          { id: OTHER_TAG, name: 'Visitor card' },
        ],
      },
    });
    expect(added.status).toBe(200);
  },
});

async function logIn(username: string, password: string): Promise<void> {
  await page.goto(`${h.controller.url}/`);
  // The tab keeps its session over a reload: log out first.
  await page.waitForSelector('main.login, header.top');
  if ((await page.locator('header .logout').count()) > 0) await page.click('header .logout');
  await page.fill('#login-username', username);
  await page.fill('#login-password', password);
  await page.click('main.login button[type=submit]');
  await page.waitForSelector('header.top');
}
const state = (s: string) => page.waitForFunction((want) => document.getElementById('system-state')?.dataset.state === want, s);
const button = (name: string) => page.getByRole('button', { name, exact: true });

describe('the running charge from the dashboard', () => {
  test('operator: pause and resume, the current slider, a refusal in words, stop after a question', async () => {
    await logIn('operator', OPERATOR_PASSWORD);
    await h.sim('plug');
    await h.sim('tag', { id: OTHER_TAG });
    await h.sim('charge');
    await state('charging');
    await page.waitForSelector('#charge-pause');
    expect((await axeFindings(page)).join('\n')).toBe('');
    // Issue 33 item 6: who is charging, by the tag's name in the whitelist, with its id.
    await page.waitForFunction(() => document.getElementById('tag')?.textContent === 'Visitor card (0A0B0C0D)');
    await documentationShot(page, 'dashboard-charging');

    await button('Pause').click();
    await state('charging_pause');
    await page.waitForSelector('#charge-resume');
    expect(await page.locator('#charge-paused').innerText()).toBe('Paused from here: the vehicle gets no current until you resume.');
    expect(h.controller.chargeControl.paused()).toBe(true);
    await button('Resume').click();
    await state('charging');
    expect(h.controller.chargeControl.paused()).toBe(false);

    // The slider: its range is 6 A to MaxCurrent (16 A); the keyboard moves it, letting go sets the current.
    const slider = page.getByLabel('Charging current');
    expect(await slider.getAttribute('min')).toBe('6');
    expect(await slider.getAttribute('max')).toBe('16');
    expect(await page.locator('#charge-current-value').innerText()).toBe('16.0 A');
    await slider.focus();
    await page.keyboard.press('Home');
    await page.waitForFunction(() => document.getElementById('charge-note')?.textContent === 'Charging current set: 6.0 A.');
    expect(h.controller.chargeControl.current()).toBe(6);
    await page.waitForFunction(() => document.querySelectorAll('dd.current')[0]?.textContent === '6.0 A', undefined, { timeout: 30_000 });
    // At the top it frees the current again.
    // The key is pressed again while the note does not say it: in a clean-clone CI run (and 1 of 2 runs here) the
    // first press was lost, the page re-drawing the slider from a state that arrived at that moment (not resolved yet).
    await until(
      'the note says 16.0 A',
      async () => {
        await slider.focus();
        await page.keyboard.press('End');
        return page
          .waitForFunction(() => document.getElementById('charge-note')?.textContent === 'Charging current set: 16.0 A.', undefined, { timeout: 3_000 })
          .then(() => true)
          .catch(() => false);
      },
      20_000,
    );
    expect(h.controller.chargeControl.current()).toBeNull();

    // Paused elsewhere meanwhile (MQTT, another page): the page's Pause is refused with the controller's reason. The
    // page's request is held until the other pause is in, so the page cannot learn of it first and hide its button.
    await page.route('**/v1/charge/pause', async (route) => {
      h.controller.chargeControl.pause();
      await route.continue();
    });
    await button('Pause').click();
    await page.waitForFunction(() => document.getElementById('charge-note')?.textContent === 'The controller refused: The charge is paused already');
    expect(await page.getAttribute('#charge-note', 'role')).toBe('alert');
    await page.unroute('**/v1/charge/pause');
    await page.waitForSelector('#charge-resume'); // read afresh after the refusal
    await button('Resume').click();
    await state('charging');

    await page.setViewportSize(PHONE);
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.screenshot({ path: join(RESULTS, 'charge-controls-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });

    await button('Stop charging').click();
    expect(await page.locator('.charge-controls .confirm').innerText()).toContain('End this charge? Its transaction ends.');
    await button('Yes').click();
    await page.waitForFunction(() => document.getElementById('system-state')?.dataset.state !== 'charging');
    await page.waitForFunction(() => !document.querySelector('.charge-controls'));
    expect(h.controller.charging.coreState()?.transaction).toBeFalsy();
    expect(w.problems).toEqual([]);
    await h.sim('unplug');
    await state('idle');
  });

  test("role user: another's charge is watched, not controlled, and the page says why", async () => {
    await h.sim('plug');
    await h.sim('tag', { id: OTHER_TAG });
    await h.sim('charge');
    await logIn(BOB.username, BOB.password);
    await state('charging');
    await page.waitForSelector('#charge-not-yours');
    expect(await page.locator('#charge-not-yours').innerText()).toMatch(/^You can watch this charge but not control it/);
    expect(await page.locator('#charge-pause').count()).toBe(0);
    expect((await axeFindings(page)).join('\n')).toBe('');
    h.controller.chargeControl.stop();
    await h.sim('unplug');

    // A view the role may not see, opened by its address, says so (it showed the dashboard without a word).
    expect(await page.locator('nav a[href="#/accounts"]').count()).toBe(0);
    await page.evaluate(() => ((globalThis as any).location.hash = '#/accounts'));
    await page.waitForSelector('#not-allowed');
    expect(await page.locator('main h1').innerText()).toBe('Accounts');
    expect(await page.locator('#not-allowed').innerText()).toBe('This view is not available to your role (User). Ask an operator or installer.');
    expect((await axeFindings(page)).join('\n')).toBe('');
  });
});
