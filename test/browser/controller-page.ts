import { join } from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ManualClock } from '../clock.js';
import { startHarness, type Harness } from '../harness.js';
import { launchBrowser, openPage, realClock, type WatchedPage } from './launcher.js';

const WAIT_MS = 20_000;
const RESULTS = join(import.meta.dirname, '..', '..', 'test-results');

export interface ControllerPage {
  h: Harness;
  w: WatchedPage;
  page: Page;
}

/**
 * For a browser test file: a controller on simulated hardware and the real clock, `prepare`d (accounts, tags), and
 * one page on it in a real Chromium, started before the file's tests and stopped after them. A failed test leaves
 * a screenshot `<name>-failed-….png` in test-results/. `ready` receives the parts once they run.
 */
export function useControllerPage(
  name: string,
  ready: (parts: ControllerPage) => void,
  options: {
    page?: BrowserContextOptions;
    prepare?: (h: Harness) => Promise<void>;
    /** More options of the controller, made before it starts (an update installer over a test install root). */
    harness?: () => Promise<Parameters<typeof startHarness>[0]>;
  } = {},
): void {
  let browser: Browser | undefined;
  let parts: ControllerPage | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
    const h = await startHarness({ ...(await options.harness?.()), clock: realClock as unknown as ManualClock });
    await options.prepare?.(h);
    const w = await openPage(browser, h.controller.url, options.page);
    w.page.setDefaultTimeout(WAIT_MS);
    parts = { h, w, page: w.page };
    ready(parts);
  }, 120_000);
  afterAll(async () => {
    await parts?.page.context().close();
    await parts?.h.stop();
    await browser?.close();
  });
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail' && parts)
      await parts.page
        .screenshot({ path: join(RESULTS, `${name}-failed-${task.name.slice(0, 30).replace(/\W+/g, '-')}.png`), fullPage: true })
        .catch(() => undefined);
  });
}

// Runs in the browser; the project's types have no DOM library.
declare const document: { querySelector(selector: string): { textContent: string | null } | null };
declare const window: { location: { hash: string } };

/** Opens the view at `#/<path>` and waits for its heading. */
export async function showView(page: Page, path: string, heading: string): Promise<void> {
  await page.evaluate((p) => (window.location.hash = p), `#/${path}`);
  await page.waitForFunction((want) => document.querySelector('main h1')?.textContent === want, heading);
}

/**
 * A picture of the page for the documentation (test-results/shot-<name>.png; docs/screenshots/ holds the chosen
 * ones, copied by hand after a run).
 */
export const documentationShot = (page: Page, name: string) => page.screenshot({ path: join(RESULTS, `shot-${name}.png`), fullPage: true });
