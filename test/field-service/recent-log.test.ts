import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pino } from 'pino';
import { expect, test } from 'vitest';
import { lineRing, recentLogOf, RECENT_LOG_BYTES } from '../../services/field-service/recent-log.js';
import { LogBuffer } from '../../services/logger.js';

const bytes = (lines: string[]) => lines.reduce((a, l) => a + Buffer.byteLength(l) + 1, 0);

test('the ring keeps the newest whole lines that fit, oldest first, across its end, multi-byte characters intact', () => {
  const ring = lineRing(64);
  expect(ring.lines()).toEqual([]);
  const written: string[] = [];
  for (let i = 0; i < 50; i++) {
    const line = `${i} ${'é'.repeat(i % 7)} ${'x'.repeat(i % 11)}`;
    written.push(line);
    ring.push(`${line}\n`);
    const kept = ring.lines();
    // The newest lines, as many as fit in 64 bytes with their newlines, and no more.
    expect(kept).toEqual(written.slice(written.length - kept.length));
    expect(bytes(kept)).toBeLessThanOrEqual(64);
    if (kept.length < written.length) expect(bytes(written.slice(written.length - kept.length - 1))).toBeGreaterThan(64);
  }
});

test('a line without its newline is kept whole; a line longer than the ring leaves nothing older', () => {
  const ring = lineRing(32);
  ring.push('one');
  ring.push('two\n');
  expect(ring.lines()).toEqual(['one', 'two']);
  ring.push('x'.repeat(40));
  expect(ring.lines()).toEqual([]);
  ring.push('three\n');
  expect(ring.lines()).toEqual(['three']);
});

test("the recent log taps the logger's stream: every line still reaches the destination, one tap per logger", () => {
  let out = '';
  const logger = pino({ base: undefined }, new LogBuffer({ write: (text: string) => ((out += text), true), once: () => undefined, on: () => undefined }));
  const recent = recentLogOf(logger);
  expect(recentLogOf(logger)).toBe(recent);
  for (let i = 0; i < 8000; i++) logger.info({ transactionId: `tx-${i}`, energyWh: i }, 'transaction stopped');
  logger.flush();
  (logger as unknown as Record<symbol, LogBuffer>)[pino.symbols.streamSym]!.writePending(true);
  const lines = recent.lines();
  expect(lines.at(-1)).toContain('"transactionId":"tx-7999"');
  expect(bytes(lines)).toBeLessThanOrEqual(RECENT_LOG_BYTES);
  expect(bytes(lines)).toBeGreaterThan(RECENT_LOG_BYTES - 200);
  expect(out.split('\n').filter(Boolean)).toHaveLength(8000);
  expect(out.endsWith(`${lines.slice(-3).join('\n')}\n`)).toBe(true);
});

/**
 * What the recent log holds in memory, measured in a fresh process with full collections (`--expose-gc`), on the
 * compiled code (`npm test` builds first): the lines a controller logs, through its pino logger and LogBuffer as
 * `npm start` has them, cost at most the ring's bytes. It kept the strings pino wrote, each holding the pieces it was
 * concatenated from: 1.5–3 MB for the same budget, growing for the first thousand sessions of a soak (issue 34).
 */
test('the recent log holds no more than its bytes in memory, however much is logged', () => {
  const dist = join(import.meta.dirname, '..', '..', 'dist', 'services');
  const script = `
    const { pino } = await import('pino');
    const { LogBuffer } = await import(${JSON.stringify(join(dist, 'logger.js'))});
    const { recentLogOf } = await import(${JSON.stringify(join(dist, 'field-service', 'recent-log.js'))});
    const logger = pino({ base: undefined }, new LogBuffer({ write: () => true, once() {}, on() {} }));
    const held = () => { gc(); gc(); const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
    const log = (from, to) => {
      for (let i = from; i < to; i++) {
        const at = new Date(1_795_000_000_000 + i * 1000).toISOString();
        const fields = { event: 'transaction_stopped', at, transactionId: 'tx-' + i, reason: 'Local', energyWh: i % 97 };
        logger.info(fields, 'Transaction tx-' + i + ' stopped (Local), ' + (i % 97) + ' Wh');
        logger.flush();
      }
    };
    log(0, 100);
    const before = held();
    const recent = recentLogOf(logger);
    const after = [];
    for (let round = 1; round <= 4; round++) { log(round * 10_000, round * 10_000 + 5_000); after.push(held() - before); }
    console.log(JSON.stringify({ after, kept: recent.lines().length }));
  `;
  const run = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' });
  const out = JSON.parse(run) as { after: number[]; kept: number };
  expect(out.kept).toBeGreaterThan(1000);
  // After 5,000 to 20,000 lines (1 to 4 MB of text): the ring's bytes, and a margin for the collector's noise (up to
  // 0.10 MB measured; the strings kept before: 5.5 MB).
  for (const grown of out.after) expect(grown).toBeLessThan(RECENT_LOG_BYTES * 1.5);
}, 30_000);
