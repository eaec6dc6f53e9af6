import { networkInterfaces } from 'node:os';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { OPERATOR_PASSWORD, type Harness } from '../harness.js';
import { axeFindings, noSidewaysScroll, type WatchedPage } from './launcher.js';
import { useControllerPage } from './controller-page.js';

declare const document: any;

/**
 * Issue 33, network status: the Network view shows the network as it is now (the interfaces' addresses and MAC as the
 * operating system gives them, the gateway, DNS) and the OCPP and MQTT connections, so a remote change is not made
 * blind. Fails on the page before it (no such card, no /v1/network).
 */

let h: Harness;
let w: WatchedPage;
let page: Page;
const VIEWER = { username: 'viewer', password: 'viewer-password-1' };
useControllerPage('network-status', (parts) => ({ h, w, page } = parts), {
  prepare: async (h) => {
    await h.controller.accounts.set(VIEWER.username, 'user', VIEWER.password);
  },
});

describe('network status', () => {
  test('the Network view shows the addresses, MAC and link of this machine, gateway, DNS and the connections', async () => {
    await page.goto(`${h.controller.url}/`);
    await page.fill('#login-username', 'operator');
    await page.fill('#login-password', OPERATOR_PASSWORD);
    await page.click('main.login button[type=submit]');
    await page.waitForSelector('header.top');
    await page.evaluate(() => (document.defaultView.location.hash = '#/settings/network'));
    await page.waitForSelector('#network-status dl');
    const card = await page.locator('#network-status').innerText();
    // The machine's own interfaces, read here independently of the controller.
    const external = Object.entries(networkInterfaces()).filter(([, infos]) => infos && !infos.every((i) => i.internal));
    for (const [name, infos = []] of external) {
      expect(card).toContain(name);
      for (const info of infos) expect(card).toContain(info.address);
      const mac = infos.find((i) => i.mac !== '00:00:00:00:00:00')?.mac;
      if (mac) expect(card).toContain(mac);
    }
    for (const label of ['Link', 'Gateway', 'DNS servers', 'Central system (OCPP)', 'MQTT broker']) expect(card).toContain(label);
    // MQTT is off in the harness: said so, not shown as a failure.
    expect(await page.locator('#network-mqtt').innerText()).toBe('Not configured');
    expect(await page.locator('#network-backend').innerText()).toMatch(/^(Not configured|Not connected|Connected since .+)/);

    expect((await axeFindings(page)).join('\n')).toBe('');
    expect(w.problems).toEqual([]);
  });

  test('at 390 px the card fits without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.evaluate(() => (document.defaultView.location.hash = '#/settings/network'));
    await page.waitForSelector('#network-status dl');
    expect(await noSidewaysScroll(page)).toBe(true);
  });

  test('every cause of a Save is shown at once: the address and the gateway together, and a field beside them', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.waitForSelector('#f-LanMode');
    await page.selectOption('#f-LanMode', { label: 'Static' });
    await page.fill('#f-LanIpAddress', '192.168.1.0');
    await page.fill('#f-LanNetmask', '255.255.255.0');
    await page.fill('#f-LanGateway', '10.0.0.1');
    await page.click('form.settings button[type=submit]');
    await page.waitForSelector('#e-LanGateway');
    expect(await page.locator('.field.invalid').evaluateAll((els) => els.map((e: any) => e.dataset.key))).toEqual(
      expect.arrayContaining(['LanIpAddress', 'LanGateway']),
    );
    expect(await page.locator('#e-LanIpAddress').innerText()).toMatch(/network/i);
    expect(await page.locator('#e-LanGateway').innerText()).toMatch(/subnet|outside/i);

    // A value wrong on its own (the APN's form) and the gateway's problem with the other values, in one Save.
    await page.fill('#f-LanIpAddress', '192.168.1.50');
    await page.selectOption('#f-GsmEnabled', { index: 1 });
    await page.fill('#f-GsmApn', 'bad apn!');
    await page.click('form.settings button[type=submit]');
    await page.waitForSelector('#e-GsmApn');
    await page.waitForFunction(() => !document.getElementById('e-LanIpAddress'));
    expect(await page.locator('#e-LanGateway').innerText()).toMatch(/outside/i);
    expect(await page.locator('#settings-note').innerText()).toMatch(/refused 2 value/);
  });

  test('the API gives the same, to operator and up only', async () => {
    const external = Object.keys(networkInterfaces()).filter((n) => !networkInterfaces()[n]!.every((i) => i.internal));
    const body = (await h.http('GET', '/v1/network', { session: await h.login() })).json;
    expect(body.interfaces.map((i: any) => i.name).sort()).toEqual(external.sort());
    expect(body.mqtt).toEqual({ configured: false, connected: false, since: null, lastError: null });
    expect((await h.http('GET', '/v1/network', { session: await h.login(VIEWER.username, VIEWER.password) })).status).toBe(403);
  });
});
