import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { OPERATOR_PASSWORD, type Harness } from '../harness.js';
import { axeFindings, noSidewaysScroll, type WatchedPage } from './launcher.js';
import { showView, useControllerPage } from './controller-page.js';

declare const document: any;

/**
 * Issue 33, item 7's last two (each failing on the page before it): the idle status card keeps a value on one line
 * at desktop width instead of wrapping it in a narrow column beside empty space; an RFID tag's id is refused in the
 * form, beside the field, unless it is a hex UID of 4, 7 or 10 bytes.
 */

let h: Harness;
let w: WatchedPage;
let page: Page;
useControllerPage('item7-tags', (parts) => ({ h, w, page } = parts));

/** How many lines an element's text takes (distinct line boxes). */
const linesOf = (selector: string) =>
  page.evaluate((s) => {
    const range = document.createRange();
    range.selectNodeContents(document.querySelector(s));
    return new Set([...range.getClientRects()].map((r: any) => Math.round(r.top))).size;
  }, selector);

describe('item 7, the rest', () => {
  test('the idle status card: the connector fact on one line at desktop width, at most two at 390 px', async () => {
    await page.goto(`${h.controller.url}/`);
    await page.fill('#login-username', 'operator');
    await page.fill('#login-password', OPERATOR_PASSWORD);
    await page.click('main.login button[type=submit]');
    await page.waitForSelector('#connection-state');
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await linesOf('#connection-state')).toBe(1);
    await page.setViewportSize({ width: 390, height: 800 });
    expect(await linesOf('#connection-state')).toBeLessThanOrEqual(2);
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('an RFID tag id that is not a hex UID of 4, 7 or 10 bytes is refused beside the field; a UID is added', async () => {
    await showView(page, 'settings/whitelists', 'Whitelists');
    await page.getByRole('button', { name: 'Add a tag', exact: true }).click();
    expect(await page.inputValue('#tag-type')).toBe('RFID');
    expect(await page.locator('#tag-id-rule').innerText()).toMatch(/8, 14 or 20 digits/);
    await page.fill('#tag-id', 'CARD-1');
    await page.click('form.subform button[type=submit]');
    await page.waitForSelector('#tag-id-cause');
    expect(await page.locator('#tag-id-cause').innerText()).toMatch(/RFID tag must be its UID in hex: 4, 7 or 10 bytes/);
    expect(await page.getAttribute('#tag-id', 'aria-invalid')).toBe('true');
    expect(await h.controller.whitelist.find('CARD-1')).toBeFalsy();
    expect((await axeFindings(page)).join('\n')).toBe('');

    await page.fill('#tag-id', '04A1B2C3D4E5F6');
    await page.click('form.subform button[type=submit]');
    await page.waitForSelector('#tags tr[data-id="04A1B2C3D4E5F6"]');
    expect(w.problems).toEqual([]);
  });
});
