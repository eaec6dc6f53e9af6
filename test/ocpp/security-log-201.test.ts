import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { openSecurityLog, SECURITY_LOG_BYTES } from '../../services/ocpp/ocpp201/security-log.js';

/** The security log file on its own (GetLog SecurityLog end to end: firmware-log-201.test.ts). */

let dir: string;
const errors: unknown[] = [];
const logger = { error: (o: unknown) => errors.push(o) };
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'security-log-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const event = (i: number) => ({ type: 'ResetOrReboot', timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(), techInfo: 'x'.repeat(200) });

test('bounded: past SECURITY_LOG_BYTES the file becomes the previous one; at most two files, the newest events kept in order', () => {
  const log = openSecurityLog(dir, logger);
  const perFile = Math.ceil(SECURITY_LOG_BYTES / JSON.stringify(event(0)).length) + 1;
  for (let i = 0; i < perFile * 3; i++) log.append(event(i));
  const file = join(dir, 'ocpp-security-log.jsonl');
  expect(statSync(file).size).toBeLessThanOrEqual(SECURITY_LOG_BYTES + 400);
  expect(statSync(`${file}.1`).size).toBeLessThanOrEqual(SECURITY_LOG_BYTES + 400);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const kept = log.events();
  expect(kept.length).toBeLessThan(perFile * 3);
  expect(kept.at(-1)).toEqual(event(perFile * 3 - 1));
  const times = kept.map((e) => Date.parse(e.timestamp));
  expect(times).toEqual([...times].sort((a, b) => a - b));
  expect(errors).toEqual([]);
});

test('a line cut by a power loss is skipped and the next event starts a line of its own; the bundle holds the range asked for', async () => {
  const log = openSecurityLog(dir, logger);
  for (let i = 0; i < 5; i++) log.append(event(i));
  appendFileSync(join(dir, 'ocpp-security-log.jsonl'), '{"type":"Reset');
  const reopened = openSecurityLog(dir, logger);
  expect(reopened.events()).toHaveLength(5);
  reopened.append(event(5));
  expect(reopened.events()).toEqual([0, 1, 2, 3, 4, 5].map(event));
  const { bytes, fileName } = await reopened
    .source(() => Date.UTC(2026, 0, 2))
    .bundle({ from: Date.parse(event(1).timestamp), to: Date.parse(event(3).timestamp) });
  expect(fileName).toBe('security-log-2026-01-02T00-00-00-000Z.json.gz');
  const body = JSON.parse(gunzipSync(bytes).toString('utf8')) as { events: unknown[] };
  expect(body.events).toEqual([event(1), event(2), event(3)]);
});
