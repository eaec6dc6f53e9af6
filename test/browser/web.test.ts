import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { ManualClock } from '../clock.js';
import { OPERATOR_PASSWORD, startHarness, type Harness } from '../harness.js';
import { axeFindings, launchBrowser, noSidewaysScroll, openPage, PHONE, realClock, type WatchedPage } from './launcher.js';

// Functions passed to page.evaluate/waitForFunction run in the browser; the project's types have no DOM library.
declare const document: any;
declare const window: any;

/**
 * The web interface (`/`) in a real browser (test/browser/launcher.ts), against a controller on simulated hardware
 * and the real clock, as in use. Every step waits for a condition with a generous time limit (a loaded 2-core
 * machine), never for a fixed time. Screenshots go to test-results/. Run alone: `npm run test:browser`.
 */

const WAIT_MS = 20_000;
const RESULTS = join(import.meta.dirname, '..', '..', 'test-results');
const TECH = { username: 'tech', password: 'tech-password-1' };
const TAG = '04A1B2C3';
const PAIRED_TAG = '04C0FFEE';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
  await mkdir(RESULTS, { recursive: true });
}, 120_000);
afterAll(() => browser?.close());

async function logIn(page: Page, origin: string, who = TECH): Promise<void> {
  if (!page.url().startsWith(origin)) await page.goto(`${origin}/`);
  await page.fill('#login-username', who.username);
  await page.fill('#login-password', who.password);
  await page.click('main.login button[type=submit]');
  await page.waitForSelector('header.top');
}

/** Opens a view by its address and waits for its heading. */
async function view(page: Page, path: string, heading: string): Promise<void> {
  await page.evaluate((p) => (window.location.hash = p), `#/${path}`);
  await page.waitForFunction((h) => document.querySelector('main h1')?.textContent === h, heading);
}

/** The button named `name` (its accessible name, exactly). */
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });
const shot = (page: Page, name: string, fullPage = true) => page.screenshot({ path: join(RESULTS, `web-${name}.png`), fullPage });
const textOf = (page: Page, selector: string) => page.locator(selector).first().innerText();

describe('the web interface on a running controller', () => {
  let h: Harness;
  let w: WatchedPage;
  let page: Page;

  beforeAll(async () => {
    h = await startHarness({ clock: realClock as unknown as ManualClock });
    await h.controller.accounts.set(TECH.username, 'installer', TECH.password);
    w = await openPage(browser, h.controller.url);
    page = w.page;
    page.setDefaultTimeout(WAIT_MS);
  }, 60_000);
  afterAll(async () => {
    await page?.context().close();
    await h?.stop();
  });
  // A failed step leaves a picture of the page behind.
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') await shot(page, `failed-${task.name.slice(0, 30).replace(/\W+/g, '-')}`).catch(() => undefined);
  });

  test('login: a wrong password is refused in words; then the dashboard shows the state', async () => {
    await page.goto(`${h.controller.url}/`);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect((await axeFindings(page)).join('\n')).toBe('');
    await shot(page, 'login');
    await page.fill('#login-username', TECH.username);
    await page.fill('#login-password', 'wrong-password');
    await page.keyboard.press('Enter'); // the keyboard submits the form
    await page.waitForSelector('#login-note.error');
    expect(await page.inputValue('#login-password')).toBe('');
    expect(await textOf(page, '#login-note')).toMatch(/^User name or password is wrong/);
    await logIn(page, h.controller.url);
    await page.waitForFunction(() => document.getElementById('system-state')?.dataset.state === 'idle');
    expect(await textOf(page, '#system-state')).toBe('Ready: no vehicle connected');
    expect(await textOf(page, 'header .who')).toBe('tech (Installer)');
    expect((await axeFindings(page)).join('\n')).toBe('');
    expect(w.problems).toEqual([]);
  });

  test('Authorization › RFID Settings: RFID Mode set to hybrid is saved and applied to the reader, and back', async () => {
    await view(page, 'settings/authorization', 'Authorization');
    const section = page.locator('section', { has: page.locator('h2', { hasText: 'RFID Settings' }) });
    await section.getByLabel('RFID Mode').selectOption({ label: 'RFID/NFC hybrid' });
    await page.click('form.settings button[type=submit]');
    await page.waitForFunction(() => document.getElementById('settings-note')?.textContent === 'Saved.');
    expect(h.controller.settings.get('RFIDMode')).toBe(1);
    expect(h.controller.nfc.rfidMode()).toBe('hybrid');
    // Read from the controller again (a view reads the settings when it opens), the form shows the saved value.
    await view(page, 'dashboard', 'Dashboard');
    await view(page, 'settings/authorization', 'Authorization');
    expect(await page.locator('#f-RFIDMode option:checked').innerText()).toBe('RFID/NFC hybrid');
    expect((await axeFindings(page)).join('\n')).toBe('');
    await shot(page, 'authorization');
    await page.getByLabel('RFID Mode').selectOption({ label: 'RFID only' });
    await page.click('form.settings button[type=submit]');
    await page.waitForFunction(() => document.getElementById('settings-note')?.textContent === 'Saved.');
    expect(h.controller.nfc.rfidMode()).toBe('rfid');
  });

  test('Network: the static address fields appear with "Static"; a bad IP is refused with the cause beside the field; nothing is saved', async () => {
    await view(page, 'settings/network', 'Network');
    expect(await page.locator('#f-LanIpAddress').count()).toBe(0); // parents: shown only for a static assignment
    await page.getByLabel('IP address assignment').selectOption({ label: 'Static' });
    await page.fill('#f-LanIpAddress', '192.168.1.300');
    await page.click('form.settings button[type=submit]');
    await page.waitForSelector('#e-LanIpAddress');
    expect(await textOf(page, '#e-LanIpAddress')).toBe('Must be an IPv4 address such as 192.168.1.50');
    expect(await page.getAttribute('#f-LanIpAddress', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#f-LanIpAddress', 'aria-describedby')).toContain('e-LanIpAddress');
    await page.waitForFunction(() => document.activeElement.id === 'f-LanIpAddress'); // the refused field has the focus
    expect(await textOf(page, '#settings-note')).toMatch(/^Nothing was saved/);
    expect(h.controller.settings.get('LanMode')).toBe(0); // all or nothing
    await shot(page, 'network-refused');
    expect((await axeFindings(page)).join('\n')).toBe('');

    // Corrected: saved, and the banner offers the restart the change needs.
    await page.fill('#f-LanIpAddress', '192.168.1.60');
    await page.click('form.settings button[type=submit]');
    await page.waitForFunction(() => document.getElementById('settings-note')?.textContent === 'Saved. The change takes effect after a restart.');
    expect([h.controller.settings.get('LanMode'), h.controller.settings.get('LanIpAddress')]).toEqual([1, '192.168.1.60']);
    await page.waitForSelector('.banner button:has-text("Restart now")');
    expect((await axeFindings(page)).join('\n')).toBe('');
  });

  test('Whitelists: add a tag by hand, then pair one with the simulator and add it', async () => {
    await view(page, 'settings/whitelists', 'Whitelists');
    await button(page, 'Add a tag').click();
    await page.fill('#tag-id', TAG);
    await page.fill('#tag-name', 'Blue card');
    await page.selectOption('#tag-type', 'RFID');
    await page.click('form.subform button[type=submit]');
    await page.waitForSelector(`#tags tr[data-id="${TAG}"]`);
    expect(await h.controller.whitelist.list()).toContainEqual(expect.objectContaining({ id: TAG, name: 'Blue card', tagType: 'RFID' }));

    await button(page, 'Start pairing').click();
    await page.waitForSelector('#pairing progress');
    expect(await textOf(page, '#pairing .countdown')).toMatch(/^(60|59|58|57|56|55) s left$/);
    expect((await axeFindings(page)).join('\n')).toBe('');
    await h.sim('tag', { id: PAIRED_TAG });
    await page.waitForSelector('#paired-tag');
    expect(await textOf(page, '#paired-tag')).toBe(PAIRED_TAG);
    await shot(page, 'pairing');
    await button(page, 'Add this tag').click();
    expect(await page.inputValue('#tag-id')).toBe(PAIRED_TAG);
    await page.waitForFunction(() => document.activeElement.id === 'tag-name'); // ready for its name
    await page.fill('#tag-name', 'Paired card');
    await page.click('form.subform button[type=submit]');
    await page.waitForSelector(`#tags tr[data-id="${PAIRED_TAG}"]`);
    expect(await textOf(page, '#whitelist-note')).toBe(`Tag ${PAIRED_TAG} added.`);
    expect(await h.controller.whitelist.list()).toContainEqual(expect.objectContaining({ id: PAIRED_TAG, name: 'Paired card' }));
    expect((await axeFindings(page)).join('\n')).toBe('');
  });

  test('the dashboard follows a charge live: state, power, energy, currents and the power chart', async () => {
    await view(page, 'dashboard', 'Dashboard');
    await h.sim('plug');
    await h.sim('tag', { id: TAG });
    await h.sim('charge');
    await page.waitForFunction(() => document.getElementById('system-state')?.dataset.state === 'charging');
    expect(await textOf(page, '#system-state')).toBe('Charging');
    // Samples arrive every second; the chart draws them.
    await page.waitForFunction(() => Number(document.getElementById('power-chart')?.dataset.points) >= 4, undefined, { timeout: 30_000 });
    expect(await textOf(page, '#power')).toMatch(/^(?!0\.00)\d+\.\d\d kW$/);
    expect(await page.locator('dd.current').count()).toBe(3);
    expect(await page.locator('#power-chart canvas').count()).toBe(1);
    // A load-management limit of 10 A: the power follows, the chart with it.
    await h.sim('load-limit', { amps: 10 });
    await page.waitForFunction(() => document.getElementById('power')?.textContent === '6.90 kW');
    expect(await page.locator('dd.current').allInnerTexts()).toEqual(['10.0 A', '10.0 A', '10.0 A']);
    const before = Number(await page.getAttribute('#power-chart', 'data-points'));
    await page.waitForFunction((n) => Number(document.getElementById('power-chart')?.dataset.points) >= n + 4, before, { timeout: 30_000 });
    expect((await axeFindings(page)).join('\n')).toBe('');
    await shot(page, 'dashboard-charging');
    // The same on a phone: one column, nothing wider than the screen.
    await page.setViewportSize(PHONE);
    expect(await noSidewaysScroll(page)).toBe(true);
    await shot(page, 'dashboard-charging-phone');
    await page.setViewportSize({ width: 1280, height: 900 });

    await h.sim('load-limit', { amps: null });
    await h.sim('tag', { id: TAG }); // the same tag again: stop
    await h.sim('unplug');
    await page.waitForFunction(() => document.getElementById('system-state')?.dataset.state === 'idle');
  });

  test('Transactions: the summary and a CSV download of the completed charge', async () => {
    await view(page, 'transactions', 'Transactions');
    await page.waitForFunction(() => document.getElementById('tx-count')?.textContent === '1');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
    const [completed] = await h.controller.transactions.listCompleted({});
    // Named by its days and with the billing columns (test/browser/billing.test.ts checks the time zone).
    const day = new Intl.DateTimeFormat('en-CA').format(new Date(completed!.startTransaction));
    expect(download.suggestedFilename()).toBe(`transactions-${day}-to-${day}.csv`);
    const csv = await readFile((await download.path())!, 'utf8');
    const [header, row, end] = csv.split('\r\n');
    expect(header!.split(',')).toEqual([
      ...['transactionId', 'startTransaction', 'endTransaction', 'timeZone', 'durationSeconds', 'meterStartWh', 'meterStopWh'],
      ...['consumptionWh', 'maxPowerW', 'stopReason', 'tagId', 'tagAlias', 'userId', 'userName'],
    ]);
    const cells = row!.split(',');
    expect(Date.parse(cells[1]!)).toBe(Math.floor(Date.parse(completed!.startTransaction) / 1000) * 1000);
    expect([cells[0], cells[4], cells[7], cells[8], cells[10], cells[13]]).toEqual([
      completed!.transactionId,
      String(Math.round((Date.parse(completed!.endTransaction) - Date.parse(completed!.startTransaction)) / 1000)),
      String(completed!.consumption),
      String(completed!.maxPower),
      TAG,
      '',
    ]);
    expect(end).toBe('');
    // A period without it: none.
    await page.fill('#tx-from', '2001-01-01');
    await page.fill('#tx-to', '2001-01-02');
    await page.click('form.range button[type=submit]');
    await page.waitForFunction(() => document.getElementById('tx-count')?.textContent === '0');
    expect((await axeFindings(page)).join('\n')).toBe('');
    await shot(page, 'transactions');
  });

  test('Deutsch: the switch sets the Language setting; the page and the API texts follow', async () => {
    await view(page, 'settings/authorization', 'Authorization');
    await page.selectOption('#language', 'de');
    await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Autorisierung');
    expect(h.controller.settings.get('Language')).toBe(1);
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    expect(await page.locator('label[for="f-RFIDMode"]').innerText()).toBe('RFID-Modus');
    expect(await page.locator('#sg-rfid').innerText()).toBe('RFID-Einstellungen');
    expect(await page.locator('nav a[href="#/dashboard"]').innerText()).toBe('Übersicht');
    expect(await page.locator('header .logout').innerText()).toBe('Abmelden');
    expect((await axeFindings(page)).join('\n')).toBe('');
    await shot(page, 'authorization-de');
    await page.selectOption('#language', 'gb');
    await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Authorization');
    expect(h.controller.settings.get('Language')).toBe(0);
  });

  test('Users, Messages and every settings group pass axe; the phone layout never scrolls sideways', async () => {
    await view(page, 'users', 'Users');
    await page.fill('#user-name', 'Alice');
    await button(page, 'Add').click();
    await page.waitForSelector('#users td >> text=Alice');
    await page.fill('#user-name', 'Bob');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#users td >> text=Bob');
    // Deleting with the keyboard: the question takes the focus, Escape gives it back, Enter on "Yes" deletes.
    const bobRow = page.locator('#users tr', { hasText: 'Bob' });
    await bobRow.getByRole('button', { name: 'Delete' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement.textContent === 'Yes');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.activeElement.textContent === 'Delete');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement.textContent === 'Yes');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('users-note')?.textContent === 'User Bob deleted.');
    expect((await h.controller.users.list()).map((u) => u.userName)).toEqual(['Alice']);
    await h.sim('fault', { fault: 'meter-offline' });
    await view(page, 'messages', 'Messages');
    await page.waitForSelector('ul.messages li');
    const views: Array<[string, string]> = [
      ['dashboard', 'Dashboard'],
      ['settings/network', 'Network'],
      ['settings/backend', 'Backend'],
      ['settings/authorization', 'Authorization'],
      ['settings/whitelists', 'Whitelists'],
      ['settings/loadmanagement', 'Load Management'],
      ['settings/installation', 'Installation'],
      ['settings/system', 'System'],
      ['users', 'Users'],
      ['transactions', 'Transactions'],
      ['messages', 'Messages'],
      ['accounts', 'Accounts'],
      ['events', 'Event log'],
    ];
    for (const size of [{ width: 1280, height: 900 }, PHONE]) {
      await page.setViewportSize(size);
      for (const [path, heading] of views) {
        await view(page, path, heading);
        await page.waitForFunction(() => !document.querySelector('main')?.textContent.includes('Loading…'));
        expect(`${size.width} ${path}: ${(await axeFindings(page)).join('; ')}`).toBe(`${size.width} ${path}: `);
        expect([size.width, path, await noSidewaysScroll(page)]).toEqual([size.width, path, true]);
      }
    }
    // On the phone the navigation is behind the menu button, operated with the keyboard.
    await view(page, 'settings/loadmanagement', 'Load Management');
    await shot(page, 'loadmanagement-phone');
    expect(await page.isVisible('nav')).toBe(false);
    await page.focus('header .menu');
    await page.keyboard.press('Enter');
    await page.waitForSelector('nav', { state: 'visible' });
    expect(await page.getAttribute('header .menu', 'aria-expanded')).toBe('true');
    await shot(page, 'menu-phone', false);
    await page.locator('nav a[href="#/messages"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Messages');
    expect(await page.isVisible('nav')).toBe(false);
    await page.waitForFunction(() => document.activeElement.tagName === 'H1'); // the new view's heading takes the focus
    await h.controller.simulator!.control({ op: 'fault', fault: 'meter-offline', active: false });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('Accounts: add one (its generated password shown once) that then logs in; roles only up to your own', async () => {
    await view(page, 'accounts', 'Accounts');
    expect(await page.locator('#account-role option').allInnerTexts()).toEqual(['User', 'Operator', 'Installer']);
    await page.fill('#account-name', 'night-shift');
    await page.selectOption('#account-role', 'operator');
    await button(page, 'Add account').click();
    await page.waitForSelector('#generated-password');
    const password = await textOf(page, '#generated-password code');
    expect(password).toMatch(/^\S{16}$/);
    await page.waitForSelector('#accounts tr[data-username="night-shift"]');
    expect((await axeFindings(page)).join('\n')).toBe('');
    await shot(page, 'accounts');
    await button(page, 'I have noted it').click();
    expect(await page.locator('#generated-password').count()).toBe(0);

    await page.click('header .logout');
    await page.waitForSelector('#logout-reason');
    expect(await textOf(page, '#logout-reason')).toBe('You have logged out.');
    // A generated password is one-time: the first run asks for an own one first (test/browser/first-run.test.ts).
    await page.fill('#login-username', 'night-shift');
    await page.fill('#login-password', password);
    await page.click('main.login button[type=submit]');
    await page.waitForSelector('main.first-run');
    await page.fill('#first-current', password);
    await page.fill('#first-next', 'night-shift-own-1');
    await page.fill('#first-again', 'night-shift-own-1');
    await page.click('main.first-run button[type=submit]');
    await page.waitForSelector('header.top');
    expect(await textOf(page, 'header .who')).toBe('night-shift (Operator)');
    expect(await page.locator('nav a[href="#/accounts"]').count()).toBe(1); // operators manage accounts up to their role
    await page.click('header .logout');
    await logIn(page, h.controller.url);
  });

  test('a login elsewhere logs the page out and it says so (1003); it kept its session alive until then', async () => {
    await view(page, 'users', 'Users');
    await h.login('operator', OPERATOR_PASSWORD); // the app, say
    // The page notices with its next call: the keep-alive after at most 20 s without other calls.
    await page.waitForSelector('#logout-reason', { timeout: 30_000 });
    expect(await textOf(page, '#logout-reason')).toMatch(/^You were logged out because someone logged in elsewhere/);
    await shot(page, 'logged-out');
    expect(w.problems.filter((p) => !p.startsWith('console:'))).toEqual([]);
  }, 45_000);
});

describe('logged out after 60 s without a call (1004)', () => {
  test('the page says why', async () => {
    const h = await startHarness(); // the manual clock: the controller's time moves only when the test says so
    const { page, problems } = await openPage(browser, h.controller.url);
    try {
      page.setDefaultTimeout(WAIT_MS);
      await page.goto(`${h.controller.url}/`);
      await logIn(page, h.controller.url, { username: 'operator', password: OPERATOR_PASSWORD });
      await page.waitForSelector('#system-state');
      await h.clock.advance(61_000);
      await page.waitForSelector('#logout-reason');
      expect(await textOf(page, '#logout-reason')).toBe(
        'You were logged out after 60 seconds without contact with the controller (for example while this computer was asleep).',
      );
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
      await h.stop();
    }
  });
});

describe('restart from the reboot banner (npm start, in-process restart)', () => {
  const ENTRY = join(import.meta.dirname, '..', '..', 'dist', 'bin', 'controller.js');
  const ACCOUNTS = join(import.meta.dirname, '..', '..', 'dist', 'bin', 'accounts.js');
  let child: ChildProcess | undefined;
  let dataDir: string;
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('a reboot setting, "Restart now", and the page asks to log in again; the setting is in effect', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cc-web-restart-'));
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_FORMAT: 'json', OPERATOR_PASSWORD };
    child = spawn(process.execPath, [ENTRY], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const listening = () => [...out.matchAll(/"listening on (http:\/\/127\.0\.0\.1:\d+)"/g)].map((m) => m[1]!);
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 400 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(done()).toBe(true);
    };
    await until(() => listening().length === 1);
    const origin = listening()[0]!;
    expect(spawnSync(process.execPath, [ACCOUNTS, 'set', 'tech', '--role', 'installer', '--password', TECH.password], { env }).status).toBe(0);

    const { page, problems } = await openPage(browser, origin);
    try {
      page.setDefaultTimeout(WAIT_MS);
      await logIn(page, origin);
      await view(page, 'settings/installation', 'Installation');
      await page.getByLabel('Phases').selectOption({ label: '1 phase' });
      await page.click('form.settings button[type=submit]');
      await page.waitForSelector('.banner');
      await page.click('.banner button:has-text("Restart now")');
      await page.click('.banner button:has-text("Yes")');
      await page.waitForSelector('#logout-reason', { timeout: 30_000 });
      expect(await textOf(page, '#logout-reason')).toBe('The controller has restarted and the changed settings are in effect. Please log in again.');
      expect(listening()).toEqual([origin, origin]);
      await logIn(page, origin);
      await view(page, 'settings/installation', 'Installation');
      expect(await page.locator('#f-Phases option:checked').innerText()).toBe('1 phase');
      expect(await page.locator('.banner').count()).toBe(0);
      expect(problems.filter((p) => !p.startsWith('console:'))).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, 60_000);
});
