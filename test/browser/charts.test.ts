import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CHART_FONT, chartedMachines, renderChartFiles } from '../../services/machine-charts.js';
import { launchBrowser } from './launcher.js';

// Functions passed to page.evaluate run in the browser; the project's types have no DOM library.
declare const document: any;

/**
 * The state charts drawn by a real browser (test/browser/launcher.ts) in the font they were laid out for: every
 * text of a state, of a compound state's frame and of the chart's title lies inside its box, and every text inside
 * the picture. These are the files of docs/charts/ (test/charts.test.ts checks they are up to date), the same SVGs
 * the inspector shows.
 */

let browser: Browser;
let page: Page;
let files: Map<string, string>;

beforeAll(async () => {
  files = await renderChartFiles();
  browser = await launchBrowser();
  page = await browser.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

interface Overflow {
  what: string;
  text: string;
  by: number;
}

/** Texts reaching outside their box (by more than `tolerance` units), in the SVG shown on the page now. */
function overflows(tolerance: number): Promise<Overflow[]> {
  return page.evaluate((tol: number) => {
    const out: Array<{ what: string; text: string; by: number }> = [];
    const inside = (what: string, box: any, text: any) => {
      const t = text.getBBox();
      const by = Math.max(box.x - t.x, t.x + t.width - (box.x + box.width), box.y - t.y, t.y + t.height - (box.y + box.height));
      if (by > tol) out.push({ what, text: text.textContent, by: Math.round(by * 10) / 10 });
    };
    const svg = document.querySelector('svg');
    const picture = svg.querySelector('g.graph > polygon').getBBox();
    for (const text of svg.querySelectorAll('text')) inside('picture', picture, text);
    for (const g of svg.querySelectorAll('g.node, g.cluster')) {
      const shape = g.querySelector(':scope > path, :scope > polygon, :scope > ellipse');
      if (!shape) continue;
      for (const text of g.querySelectorAll(':scope > text')) inside(g.id, shape.getBBox(), text);
    }
    return out;
  }, tolerance);
}

test(`the browser draws ${CHART_FONT}, the font the charts are laid out for (Debian: fonts-dejavu-core)`, async () => {
  const widths = await page.evaluate((font: string) => {
    const ctx = document.createElement('canvas').getContext('2d');
    const measure = (family: string) => {
      ctx.font = `11px ${family}`;
      return ctx.measureText('connected · authorized_for_charging · suspendedev').width;
    };
    return { font: measure(`"${font}", monospace`), monospace: measure('monospace'), serif: measure(`"${font}", serif`) };
  }, CHART_FONT);
  // A missing font falls back to the generic family named after it: the width would follow that family.
  expect(widths.font).toBe(widths.serif);
  expect(widths.font).not.toBe(widths.monospace);
});

describe.each(chartedMachines().map((c) => [c.id, c.file] as const))('chart of %s', (_id, file) => {
  test('no text is clipped: each lies inside its state, frame and the picture', async () => {
    await page.setContent(`<!doctype html><html><body style="margin:0">${files.get(`${file}.svg`)}</body></html>`);
    expect(await overflows(0.5)).toEqual([]);
  });
});
