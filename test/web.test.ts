import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loginProof as nodeLoginProof } from '../machines/secrets.js';
import { AUTH_STATES, CONNECTION_STATES, OCPP_STATES, SYSTEM_STATES } from '../services/core/system-state.js';
import { GROUP_KEYS } from '../services/settings/catalogue.js';
import { ROLES } from '../db/schema.js';
import { TAG_PRIORITIES } from '../services/whitelist.js';
import { LIMIT_SOURCES } from '../services/energy/allocator.js';
import { SOLAR_MODES, SOLAR_STATES } from '../services/mqtt/energy-topics.js';
import { clientFolder } from '../api/web/routes.js';
import { PAGE_HTML } from '../api/web/page.js';
import { IMPORT_MAP_HASH, VENDOR_FILES } from '../api/web/vendor.js';
import { startHarness, type Harness } from './harness.js';

/** The web interface as files and HTTP: what the controller serves at `/`, and the page's own rules. */

const CLIENT = clientFolder();
const clientFiles = (dir = CLIENT): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? clientFiles(join(dir, e.name)) : [join(dir, e.name)]));
const scripts = clientFiles().filter((f) => f.endsWith('.js'));
const source = (file: string) => readFileSync(file, 'utf8');
/** A browser module of the page, run in Node (it imports only what Node resolves too). */
const importClient = (name: string): Promise<unknown> => import(pathToFileURL(join(CLIENT, name)).href);

describe('served by the controller', () => {
  let h: Harness;
  beforeAll(async () => (h = await startHarness()));
  afterAll(() => h.stop());

  test('the page at / with a Content-Security-Policy that allows nothing from elsewhere and only the import map inline', async () => {
    const page = await h.http('GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toBe(PAGE_HTML);
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toBe(
      `default-src 'none'; script-src 'self' 'sha256-${IMPORT_MAP_HASH}'; style-src 'self'; img-src 'self'; connect-src 'self'; ` +
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    // The hash is the import map's, as it stands in the page.
    const inline = [...PAGE_HTML.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(inline).toHaveLength(1);
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(inline[0]!).digest('base64')).toBe(IMPORT_MAP_HASH);
    // Every module of the import map and every file the page names is served.
    const map = JSON.parse(inline[0]!).imports as Record<string, string>;
    for (const path of [...Object.values(map).filter((p) => !p.endsWith('/')), ...[...PAGE_HTML.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]!)]) {
      const res = await h.http('GET', path);
      expect([path, res.status]).toEqual([path, 200]);
    }
  });

  test('every file of api/web/client and every library file is served with its type and the same headers', async () => {
    const types: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml' };
    for (const file of clientFiles()) {
      const path = `/web/${relative(CLIENT, file).split('\\').join('/')}`;
      const res = await h.http('GET', path);
      expect([path, res.status, res.headers['content-type']]).toEqual([path, 200, types[file.split('.').pop()!]]);
      expect(res.text).toBe(source(file));
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    }
    for (const v of VENDOR_FILES) {
      const res = await h.http('GET', v.path);
      expect([v.path, res.status]).toEqual([v.path, 200]);
      expect(res.text.length).toBeGreaterThan(100);
    }
    expect((await h.http('GET', '/web/nothing.js')).status).toBe(404);
    expect((await h.http('GET', '/web/../package.json')).status).toBe(404);
    expect((await h.http('POST', '/')).json.cause).toMatch(/use GET/);
  });

  test('files are revalidated by ETag (304 when unchanged) and sent gzip-compressed when the browser takes it', async () => {
    const first = await h.http('GET', '/web/vendor/uplot.js');
    expect(first.headers['cache-control']).toBe('no-cache');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await h.http('GET', '/web/vendor/uplot.js', { headers: { 'if-none-match': etag } });
    expect([again.status, again.text]).toEqual([304, '']);
    const { request } = await import('node:http');
    const gz = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: h.controller.port, path: '/web/vendor/uplot.js', headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(gz.encoding).toBe('gzip');
    expect(gz.body.length).toBeLessThan(first.text.length / 2);
    expect(gunzipSync(gz.body).toString('utf8')).toBe(first.text);
  });

  test('needs no session, and says nothing about the controller', async () => {
    const page = await h.http('GET', '/');
    expect(page.text).not.toMatch(/operator|password|session/i);
  });
});

describe("the page's code", () => {
  test('loads nothing from elsewhere and renders data only as text (no HTML from strings, no eval)', () => {
    for (const file of [...scripts, ...clientFiles().filter((f) => f.endsWith('.css'))]) {
      const text = source(file);
      expect([file, /https?:\/\/|@import|url\(/.test(text)]).toEqual([file, false]);
    }
    for (const file of scripts) {
      expect([file, /innerHTML|outerHTML|insertAdjacentHTML|dangerouslySetInnerHTML|document\.write|eval\(|new Function/.test(source(file))]).toEqual([
        file,
        false,
      ]);
    }
  });

  test('keeps the session alive well within the 60 s time-out', async () => {
    const api = source(join(CLIENT, 'api.js'));
    const keepalive = Number(/export const KEEPALIVE_MS = ([\d_]+);/.exec(api)![1]!.replace(/_/g, ''));
    expect(keepalive).toBeLessThanOrEqual(20_000);
  });

  test("its login proof (@noble/hashes) equals the controller's for every block boundary and non-ASCII text", async () => {
    const { loginProof } = (await importClient('login-proof.js')) as { loginProof: (p: string, t: string) => string };
    const token = '0123456789abcdef0123456789abcdef';
    const passwords = ['', 'abc', 'operator-secret-1', 'ü€😀 password', ...[23, 24, 31, 32, 33, 87, 88, 1000].map((n) => 'x'.repeat(n))];
    for (const p of passwords) expect(loginProof(p, token), p).toBe(nodeLoginProof(p, token));
  });
});

describe('UI strings in four languages', () => {
  type Strings = Record<'gb' | 'de' | 'nl' | 'fr', Record<string, string>>;
  let STRINGS: Strings;
  beforeAll(async () => {
    ({ STRINGS } = (await importClient('strings.js')) as { STRINGS: Strings });
  });
  const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

  test('every key exists in every language, not empty, with the same placeholders', () => {
    const keys = Object.keys(STRINGS.gb);
    expect(keys.length).toBeGreaterThan(200);
    // One file per language (strings/<key>.js), each of them in STRINGS.
    expect(
      clientFiles(join(CLIENT, 'strings'))
        .map((f) => relative(join(CLIENT, 'strings'), f))
        .sort(),
    ).toEqual(['de.js', 'fr.js', 'gb.js', 'nl.js']);
    expect(Object.keys(STRINGS).sort()).toEqual(['de', 'fr', 'gb', 'nl']);
    for (const lang of ['de', 'nl', 'fr'] as const) {
      expect([lang, Object.keys(STRINGS[lang]).filter((k) => !keys.includes(k))]).toEqual([lang, []]);
      for (const key of keys) {
        const text = STRINGS[lang][key];
        expect([lang, key, typeof text === 'string' && text.trim() !== '']).toEqual([lang, key, true]);
        expect([lang, key, placeholders(text!)]).toEqual([lang, key, placeholders(STRINGS.gb[key]!)]);
      }
    }
  });

  test('every key the code names exists, and every state, group, role and priority the API answers has its words', () => {
    const keys = new Set(Object.keys(STRINGS.gb));
    const used = new Set<string>();
    for (const file of scripts.filter((f) => !f.endsWith('strings.js') && !f.includes(`${sep}strings${sep}`))) {
      for (const m of source(file).matchAll(/\bt\(\s*'([^']+)'/g)) used.add(m[1]!);
      // Keys chosen by a condition or passed on: quoted texts shaped like a key of a known family.
      for (const m of source(file).matchAll(/'((?:loggedOut|whitelist|settings|accounts|pairing|users)\.[\w.]+)'/g)) used.add(m[1]!);
    }
    expect([...used].filter((k) => !keys.has(k))).toEqual([]);
    const families: Array<[string, readonly string[]]> = [
      ['systemState', SYSTEM_STATES],
      ['connectionState', CONNECTION_STATES],
      ['authState', AUTH_STATES],
      ['ocppState', OCPP_STATES],
      ['group', GROUP_KEYS],
      ['role', ROLES],
      ['whitelist.priority', TAG_PRIORITIES],
      ['loggedOut', ['manual', '1002', '1003', '1004', '1005', 'restart', 'restartSlow']],
      ['energy.source', LIMIT_SOURCES],
      ['energy.mode', SOLAR_MODES],
      ['energy.solar', SOLAR_STATES],
      // The event log view's topics and periods (views/events.js).
      ['events.topic', ['faults', 'sessions', 'settings', 'logins', 'other']],
      ['events.period', ['1', '24', '168', '720', '0']],
      // The updates view's slots and history events (views/updates.js, services/field-service/slots.ts).
      ['updates.slot', ['base', 'a', 'b']],
      ['updates.event', ['installed', 'committed', 'rolled-back', 'install-failed']],
    ];
    for (const [family, values] of families) for (const v of values) expect(keys.has(`${family}.${v}`), `${family}.${v}`).toBe(true);
  });
});
