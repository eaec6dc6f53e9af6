import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { packageFile } from '../../api/web/vendor.js';
import type { Clock } from '../../services/core/clock.js';

// Functions passed to page.evaluate run in the browser; the project's types have no DOM library.
declare const document: any;
declare const window: any;

/**
 * The browser of the browser tests, with nothing to install beyond `npm install`: Chromium from the npm package
 * @sparticuz/chromium (it ships the binary and unpacks it into the temp directory on first use), driven by
 * playwright-core (which downloads nothing). A Chromium named by CHROMIUM_PATH, or a system one (Debian's
 * /usr/bin/chromium), is preferred when present.
 */

const SYSTEM_CHROMIUMS = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
const SYSTEM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/**
 * @sparticuz/chromium's flags for serverless functions that do not fit here: no same-origin policy and mixed
 * content (the browser would be unlike a user's), and one process (closing one context would end the browser).
 */
const UNFIT = new Set(['--disable-web-security', '--allow-running-insecure-content', '--single-process']);
const UNPACK_LOCK = join(tmpdir(), 'cc-chromium-unpack.lock');
const LOCK_STALE_MS = 120_000;

/** Runs `work` while holding a lock shared by every test process (a directory: mkdir either creates it or fails). */
async function withLock<T>(work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      await mkdir(UNPACK_LOCK);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age =
        Date.now() -
        (await stat(UNPACK_LOCK).then(
          (s) => s.mtimeMs,
          () => Date.now(),
        ));
      if (age > LOCK_STALE_MS) await rm(UNPACK_LOCK, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await work();
  } finally {
    await rm(UNPACK_LOCK, { recursive: true, force: true });
  }
}

/**
 * The files @sparticuz/chromium unpacks straight into the temp directory: `chromium`, and SwiftShader's libraries
 * and Vulkan driver file, named by the tar archive it ships. The package unpacks again only when `chromium` or
 * `libGLESv2.so` is missing; with any other one gone (a temp-directory cleaner, a `rm /tmp/*.json`) Chromium
 * dies at launch (SIGTRAP, "Extension not supported: VK_KHR_surface").
 */
export function unpackedFiles(): string[] {
  const tar = brotliDecompressSync(readFileSync(packageFile('@sparticuz/chromium', 'bin/swiftshader.tar.br')));
  const field = (at: number, length: number) =>
    tar
      .toString('latin1', at, at + length)
      .replace(/\0.*$/s, '')
      .trim();
  const names = ['chromium'];
  for (let at = 0; at + 512 <= tar.length;) {
    const name = field(at, 100);
    if (!name) break;
    names.push(name);
    at += 512 + Math.ceil(parseInt(field(at + 124, 12) || '0', 8) / 512) * 512;
  }
  return names;
}

/** Removes an incomplete unpacking from `dir` (the temp directory), so that the package unpacks every file again. */
export async function removeIncompleteUnpacking(dir = tmpdir()): Promise<void> {
  const files = unpackedFiles().map((name) => join(dir, name));
  if (files.some((f) => !existsSync(f))) await Promise.all(files.map((f) => rm(f, { force: true })));
}

/** Which browser the tests use, and how it is started. */
export async function browserToUse(): Promise<{ executablePath: string; args: string[]; source: string; env?: Record<string, string> }> {
  const named = process.env.CHROMIUM_PATH;
  if (named) return { executablePath: named, args: SYSTEM_ARGS, source: 'CHROMIUM_PATH' };
  const system = SYSTEM_CHROMIUMS.find((p) => existsSync(p));
  if (system) return { executablePath: system, args: SYSTEM_ARGS, source: 'system' };
  const { default: packaged } = await import('@sparticuz/chromium');
  // Unpacked once per machine (into the temp directory); two test files must not unpack it at the same time.
  const executablePath = await withLock(async () => {
    await removeIncompleteUnpacking();
    return packaged.executablePath();
  });
  // A machine without system fonts uses the fonts the package unpacked.
  const env = existsSync('/usr/share/fonts') ? undefined : { FONTCONFIG_PATH: join(tmpdir(), 'fonts') };
  return { executablePath, args: packaged.args.filter((a) => !UNFIT.has(a)), source: '@sparticuz/chromium', ...(env ? { env } : {}) };
}

export async function launchBrowser(): Promise<Browser> {
  const { executablePath, args, env } = await browserToUse();
  return chromium.launch({ executablePath, args, headless: true, ...(env ? { env: { ...process.env, ...env } as Record<string, string> } : {}) });
}

/** Problems a page must not have: script errors, failed loads, requests to other origins, CSP violations. */
export interface WatchedPage {
  page: Page;
  problems: string[];
}

/** A new page in its own context (its own storage) that records its problems; `origin` is the only allowed one. */
export async function openPage(browser: Browser, origin: string, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB', ...options });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on('request', (r) => {
    if (!r.url().startsWith(origin) && !r.url().startsWith('blob:') && !r.url().startsWith('data:')) problems.push(`request elsewhere: ${r.url()}`);
  });
  return { page, problems };
}

/** A phone's screen (CSS pixels), for the layout checks. */
export const PHONE = { width: 390, height: 844 };

/** The real clock: browser tests run the controller as in use, waiting for conditions, never for fixed times. */
export const realClock: Clock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
  now: () => Date.now(),
};

const AXE = packageFile('axe-core', 'axe.min.js');

/** The serious and critical findings of axe-core on the page as it is (axe is injected, not served). */
export async function axeFindings(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(await readFile(AXE, 'utf8'));
  const violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> = await page.evaluate(
    async () => (await window.axe.run(document)).violations,
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Whether the page fits its window's width (nothing to scroll sideways). The charts follow a new window width on
 * their resize observer's turn, so after a resize they are given up to 2 s to fit before the page is measured.
 */
export async function noSidewaysScroll(page: Page): Promise<boolean> {
  await page
    .waitForFunction(
      () => [...document.querySelectorAll('canvas')].every((c: any) => c.getBoundingClientRect().width <= document.documentElement.clientWidth),
      undefined,
      { timeout: 2_000 },
    )
    .catch(() => undefined); // measured below either way
  return page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
}
