import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppHandler, Operation, Router } from '../types.js';
import { asset, contentType, pageHeaders, serveAsset, type Asset } from './assets.js';
import { PAGE_HTML } from './page.js';
import { IMPORT_MAP_HASH, packageFile, VENDOR_FILES } from './vendor.js';

/** The browser files of the web interface, whether this module runs from source (api/web/) or compiled (dist/). */
export function clientFolder(): string {
  for (const candidate of ['./client', '../../../api/web/client']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(join(path, 'app.js'))) return path;
  }
  throw new Error('api/web/client not found next to the web routes');
}

/** Every file of a folder, recursively, as paths relative to it with `/`. */
function filesIn(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesIn(root, join(dir, e.name)) : [relative(root, join(dir, e.name)).split(sep).join('/')],
  );
}

/** The headers of the page and of every file it loads (its import map is the one inline script allowed). */
export const WEB_HEADERS = pageHeaders([IMPORT_MAP_HASH]);

/** A GET handler for a file read on first use and kept (the files do not change while running). */
export function fileHandler(type: string, read: () => string | Buffer, headers: Record<string, string> = WEB_HEADERS): AppHandler {
  let cached: Asset | undefined;
  return (c) => serveAsset(c, (cached ??= asset(type, read())), headers);
}

/** GET of a file as an operation of the API document (200 with its media type, 304 when the browser has it). */
export function fileOperation(summary: string, type: string, read: () => string | Buffer, headers: Record<string, string> = WEB_HEADERS): Operation {
  return {
    summary,
    responses: {
      200: { description: 'The file (gzip-compressed when the browser accepts it)', type: type.split(';')[0]! },
      304: 'Not modified: the ETag matches',
    },
    handle: fileHandler(type, read, headers),
  };
}

/**
 * The web interface (outside the /v1 API): the page at `/`, its files under `/web/`, and the libraries under
 * `/web/vendor/`. They hold no data and need no session; the page logs in through /v1/login like every client.
 */
export function webRoutes(router: Router): void {
  const files = { public: true, tag: 'Web interface' };
  router.resource('/', { GET: fileOperation('The web interface (a page that loads its application)', 'text/html; charset=utf-8', () => PAGE_HTML) }, files);
  const folder = clientFolder();
  for (const name of filesIn(folder)) {
    const type = contentType(name);
    if (type) router.resource(`/web/${name}`, { GET: fileOperation(`Web interface file ${name}`, type, () => readFileSync(join(folder, name))) }, files);
  }
  for (const v of VENDOR_FILES) {
    const path = packageFile(v.pkg, v.file);
    router.resource(v.path, { GET: fileOperation(`Library file (${v.pkg})`, contentType(v.path)!, () => readFileSync(path)) }, files);
  }
}
