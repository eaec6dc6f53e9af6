import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { OPERATOR_PASSWORD, type Harness } from '../harness.js';
import { axeFindings, noSidewaysScroll, type WatchedPage } from './launcher.js';
import { documentationShot, showView, useControllerPage } from './controller-page.js';

/**
 * Issue 33, the event log view: GET /v1/events in the page, newest first, filtered by topic (faults, sessions,
 * settings changes, logins), with a live tail that shows what happens while the view is open. Fails on the page
 * before it (no such view).
 */

let h: Harness;
let w: WatchedPage;
let page: Page;
const VIEWER = { username: 'viewer', password: 'viewer-password-1' };
useControllerPage('events', (parts) => ({ h, w, page } = parts), {
  prepare: async (h) => {
    await h.controller.accounts.set(VIEWER.username, 'user', VIEWER.password);
  },
});

const kinds = () => page.locator('#events tbody tr').evaluateAll((rows) => rows.map((r: any) => r.dataset.kind as string));

async function logIn(username: string, password: string): Promise<void> {
  await page.goto(`${h.controller.url}/`);
  await page.fill('#login-username', username);
  await page.fill('#login-password', password);
  await page.click('main.login button[type=submit]');
  await page.waitForSelector('header.top');
}

describe('the event log view', () => {
  test('shows the log newest first, and what happens while it is open (live tail)', async () => {
    await logIn('operator', OPERATOR_PASSWORD);
    await showView(page, 'events', 'Event log');
    await page.waitForSelector('#events tr[data-kind="login"]');
    expect(await page.locator('#events tr[data-kind="login"]').first().innerText()).toContain('operator');

    // Without reloading: a refused tag and a fault appear, newest on top.
    await h.sim('tag', { id: 'DEADBEEF' });
    await page.waitForSelector('#events tr[data-kind="tag_refused"]');
    await h.sim('temperature', { celsius: 85 });
    await page.waitForSelector('#events tr[data-kind="fault_raised"]');
    const shown = await kinds();
    expect(shown.indexOf('fault_raised')).toBeLessThan(shown.indexOf('tag_refused'));
    expect(shown.indexOf('tag_refused')).toBeLessThan(shown.indexOf('login'));
    expect(await page.locator('#events tr[data-kind="tag_refused"]').innerText()).toContain('Tag DEADBEEF refused');
    await h.sim('temperature', { celsius: 25 });
  });

  test('filters by topic: faults, sessions, settings changes, logins', async () => {
    // A settings change through the page's own session.
    await page.evaluate(async () => {
      const id = JSON.parse((globalThis as any).sessionStorage.getItem('cc-session')).id;
      await fetch('/v1/settings', {
        method: 'PATCH',
        headers: { Authorization: id, 'Content-Type': 'application/json' },
        body: '{"params":[{"key":"EventLogMaxAge","value":30}]}',
      });
    });
    await page.waitForSelector('#events tr[data-kind="settings_changed"]');

    await page.uncheck('#events-topic-sessions');
    await page.uncheck('#events-topic-logins');
    let shown = await kinds();
    expect(shown).toContain('fault_raised');
    expect(shown).toContain('settings_changed');
    expect(shown).not.toContain('tag_refused');
    expect(shown).not.toContain('login');

    await page.uncheck('#events-topic-faults');
    await page.uncheck('#events-topic-settings');
    await page.check('#events-topic-logins');
    shown = await kinds();
    expect(shown).toContain('login');
    expect(shown.filter((k) => !/^(login|logout|account_|session_ended)/.test(k))).toEqual([]);
    expect(await page.locator('#events-count').innerText()).toBe(`${shown.length} events.`);
    await documentationShot(page, 'events');
    expect((await axeFindings(page)).join('\n')).toBe('');
    expect(w.problems).toEqual([]);
  });

  test('at 390 px it fits without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    for (const key of ['faults', 'sessions', 'settings']) await page.check(`#events-topic-${key}`);
    expect(await noSidewaysScroll(page)).toBe(true);
    expect((await axeFindings(page)).join('\n')).toBe('');
  });

  test('a user does not see it and is told why when opening it', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.click('header button.logout');
    await page.waitForSelector('#login-username');
    await logIn(VIEWER.username, VIEWER.password);
    expect(await page.locator('nav a[href="#/events"]').count()).toBe(0);
    await page.evaluate(() => ((globalThis as any).location.hash = '#/events'));
    await page.waitForSelector('#not-allowed');
  });
});
