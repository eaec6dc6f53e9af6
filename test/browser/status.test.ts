import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { OPERATOR_PASSWORD, type Harness } from '../harness.js';
import { axeFindings, noSidewaysScroll, PHONE, type WatchedPage } from './launcher.js';
import { useControllerPage } from './controller-page.js';

// Functions passed to page.evaluate/waitForFunction run in the browser; the project's types have no DOM library.
declare const document: any;

/**
 * Issue 33, item 3: the status card leads with what is wrong: an active ERROR is its headline with what to do,
 * WARNINGs are in the card, and a temperature out of range is marked. Real browser, simulated hardware.
 */

const RESULTS = join(import.meta.dirname, '..', '..', 'test-results');

let h: Harness;
let w: WatchedPage;
let page: Page;
useControllerPage('status', (parts) => ({ h, w, page } = parts), { page: { viewport: PHONE } });

describe('the status card', () => {
  test('overtemperature, meter offline: the fault and what to do lead, the warning is in the card, 85 °C is marked; on a phone at the top', async () => {
    await page.goto(`${h.controller.url}/`);
    await page.fill('#login-username', 'operator');
    await page.fill('#login-password', OPERATOR_PASSWORD);
    await page.click('main.login button[type=submit]');
    await page.waitForFunction(() => document.getElementById('system-state')?.dataset.state === 'idle');
    expect(await page.locator('#system-state').innerText()).toBe('Ready: no vehicle connected');
    expect(await page.locator('#temperature.out-of-range').count()).toBe(0);

    await h.sim('fault', { fault: 'meter-offline' });
    await h.sim('temperature', { celsius: 85 });
    await page.waitForFunction(() => document.getElementById('system-state')?.dataset.fault === 'OVERTEMPERATURE');
    expect(await page.locator('#system-state').innerText()).toBe('The temperature inside the charge point is too high (80 °C or more): charging is stopped');
    expect(await page.locator('#fault-action').innerText()).toBe(
      'What to do: Charging resumes by itself below 75 °C. Shade the charge point and keep its vents free.',
    );
    expect(await page.locator('#state-words').innerText()).toBe('Error: charging is not possible');
    await page.waitForFunction(() => document.getElementById('status-messages')?.textContent.includes('The energy meter does not answer'));
    expect(await page.locator('#status-messages li.warning').allInnerTexts()).toContainEqual(
      expect.stringMatching(/^Warning: The energy meter does not answer/),
    );
    expect(await page.locator('#temperature').innerText()).toBe('85.0 °C (too high)');
    expect(await page.locator('#temperature.out-of-range').count()).toBe(1);
    // Where the eye goes on a phone: the headline and the warning are on the first screen.
    const bottom = await page.evaluate(() => document.getElementById('status-messages').getBoundingClientRect().bottom);
    expect(bottom).toBeLessThanOrEqual(PHONE.height);
    expect(await noSidewaysScroll(page)).toBe(true);
    expect((await axeFindings(page)).join('\n')).toBe('');
    await page.screenshot({ path: join(RESULTS, 'status-fault-phone.png') });

    // The fault gone: the state in words leads again; the warning stays in the card.
    await h.sim('temperature', { celsius: 25 });
    await page.waitForFunction(() => document.getElementById('system-state')?.dataset.fault === undefined);
    await page.waitForFunction(() => document.getElementById('system-state')?.textContent.trim() === 'Ready: no vehicle connected');
    expect(await page.locator('#temperature.out-of-range').count()).toBe(0);
    expect(await page.locator('#status-messages li.warning').count()).toBe(1);
    expect(w.problems).toEqual([]);
  });
});
