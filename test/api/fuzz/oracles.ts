/** What the spec says of a generated body: valid, invalid or left open, and the statuses that follow. */
import { expect } from 'vitest';
import { short } from './controller.js';
import { chars, CONTROL_RE, isPlainObject, parsedBody } from './generators.js';

// ---------------------------------------------------------------------------------------------------------------
// Oracles for bodies
// ---------------------------------------------------------------------------------------------------------------

export type Verdict = 'valid' | 'invalid' | 'open';

/** userName (spec 4.4): a string of at most 255 characters; empty or control characters are left open. */
export function userNameVerdict(v: unknown): Verdict {
  if (typeof v !== 'string' || chars(v) > 255) return 'invalid';
  if (v === '' || CONTROL_RE.test(v)) return 'open';
  return 'valid';
}

export function userBodyVerdict(raw: string | Buffer): Verdict {
  const body = parsedBody(raw);
  if (!body.json || !isPlainObject(body.value) || !Object.hasOwn(body.value, 'userName')) return 'invalid';
  return userNameVerdict(body.value.userName);
}

/** Key/value pairs (spec 2.12a, 8): an object of strings, keys ≤ 256 and values ≤ 1000 characters, ≤ 1000 pairs. */
export function pairsVerdict(raw: string | Buffer): { verdict: Verdict; keys: string[] } {
  const body = parsedBody(raw);
  if (!body.json || !isPlainObject(body.value)) return { verdict: 'invalid', keys: [] };
  const entries = Object.entries(body.value);
  if (entries.length > 1000) return { verdict: 'invalid', keys: [] };
  let verdict: Verdict = entries.length === 0 ? 'open' : 'valid';
  for (const [k, v] of entries) {
    if (typeof v !== 'string' || chars(v) > 1000 || chars(k) > 256) return { verdict: 'invalid', keys: [] };
    // `.` and `..` cannot be addressed in /v1/map/{key} (dot segments): the controller refuses them.
    if (k === '.' || k === '..') return { verdict: 'invalid', keys: [] };
    if (k === '') verdict = 'open';
  }
  return { verdict, keys: entries.map(([k]) => k) };
}

/** The statuses POST (add) or PATCH (update) /v1/map must answer given the store's content. */
export function mapExpectation(method: 'POST' | 'PATCH', raw: string | Buffer, store: Record<string, string>): readonly number[] {
  const { verdict, keys } = pairsVerdict(raw);
  if (verdict === 'invalid') return method === 'POST' ? [400, 409] : [400, 404];
  const present = keys.filter((k) => Object.hasOwn(store, k));
  let ok: number[];
  if (method === 'POST') {
    if (present.length > 0) ok = [409];
    else ok = Object.keys(store).length + keys.length > 1000 ? [400] : [201];
  } else {
    ok = present.length === keys.length ? [200] : [404];
  }
  return verdict === 'open' ? [400, ...ok] : ok;
}

/** After an accepted POST or PATCH /v1/map, every pair of the request reads back as sent. */
export async function expectStored(raw: string | Buffer, store: Record<string, string>): Promise<void> {
  const sent = (parsedBody(raw) as { value: Record<string, string> }).value;
  for (const [key, value] of Object.entries(sent)) {
    expect(Object.hasOwn(store, key) ? store[key] : '<missing>', `pair ${JSON.stringify(key)} read back after ${short(JSON.stringify(String(raw)))}`).toBe(
      value,
    );
  }
}
