import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';

/**
 * Issue 35 item 4: an in-process restart (POST /v1/restart with HARDWARE=sim) releases everything the previous
 * controller held. test/fixtures/restarts.mjs restarts a controller 60 times through the endpoint in a process of
 * its own (plain Node, as `npm start` runs: the test runner's module loader holds on to native handles of its own)
 * and samples its handles to controller.db and its heap every 10 restarts, each after a full garbage collection.
 * The first 10 restarts warm the JIT up (compiled code and feedback grow the heap by about 2 MB, once); from there
 * nothing may grow. Before the fix each restart kept prom-client's collectors, histograms and registry.
 */
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'restarts.mjs');

interface Sample {
  restarts: number;
  handles: number;
  heapMB: number;
  rssMB: number;
}

test('60 restarts through POST /v1/restart: no growth of database handles or heap once warm (after the first twenty)', { timeout: 180_000 }, async () => {
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', FIXTURE], { env: { PATH: process.env.PATH ?? '', RESTARTS: '60' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`fixture exited ${code}: ${err}`))));
  });
  const { first, series } = JSON.parse(output.trim().split('\n').at(-1)!) as { first: Omit<Sample, 'restarts'>; series: Sample[] };
  console.log(
    `after restart 1: ${first.handles} handles, ${first.heapMB.toFixed(1)} MB; ` +
      series.map((s) => `after ${s.restarts}: ${s.handles}, ${s.heapMB.toFixed(1)} MB, RSS ${s.rssMB.toFixed(0)} MB`).join('; '),
  );
  expect(series.map((s) => s.restarts)).toEqual([10, 20, 30, 40, 50, 60]);
  // Warm from about the 20th restart: with energy management, field service and the charge controls, handles, heap
  // and RSS still rise from restart 10 to 20 and then stay (28 Nov: handles 10, 13, 13, 13, 13; heap 38.7, 39.2,
  // 39.4, 41.7, 41.9 MB; RSS 152, 165, 164, 167, 166 MB after 10…50), so restarts 20 and 30 are the base.
  const warm = series.slice(1, 3);
  const late = series.slice(-2);
  // Handles: a closed connection's file goes once its statements are collected; none may accumulate.
  expect(Math.max(...late.map((s) => s.handles))).toBeLessThanOrEqual(Math.max(...warm.map((s) => s.handles)) + 1);
  // Resident memory, the lower of two samples: before the fix it grew by about 24 MB from restart 10 to 50, now by
  // about 5 (the allocator's noise).
  expect(Math.min(...late.map((s) => s.rssMB)) - Math.min(...warm.map((s) => s.rssMB))).toBeLessThan(12);
  // Heap: it grows by 3–5 MB from restart 10 to about the 30th (optimised code of every path a restart takes, more
  // since energy management: 33.6, 36.1, 38.1, 38.1, 38.2 MB after 10…50 on 28 Nov; main before it: 32.8 … 37.0)
  // and then stays; a single sample moves by up to 3 MB, so the lower of two is compared. A leak of 130 kB a
  // restart or more (over 5 MB from restart 20/30 to 50/60) fails here.
  expect(Math.min(...late.map((s) => s.heapMB)) - Math.min(...warm.map((s) => s.heapMB))).toBeLessThan(5);
});
