import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { AppContext } from '../types.js';

/**
 * Serving the controller's own pages and their files (the web interface at `/`, the inspector at `/inspect`): no
 * other origin, no inline script but the import map (allowed by its hash), no framing. Files are revalidated on
 * every use (`no-cache` with an ETag, so an unchanged file costs a 304) and sent gzip-compressed when the browser
 * accepts it.
 */

/** The Content-Security-Policy of a page: nothing from elsewhere; inline scripts only by their SHA-256. */
export function pageHeaders(scriptHashes: readonly string[] = []): Record<string, string> {
  const scripts = ["'self'", ...scriptHashes.map((h) => `'sha256-${h}'`)].join(' ');
  return {
    'Content-Security-Policy':
      `default-src 'none'; script-src ${scripts}; style-src 'self'; img-src 'self'; connect-src 'self'; ` +
      "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
}

/** SHA-256 of a text as CSP writes it (base64). */
export const cspHash = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** The content type of a file name, or undefined for a kind that is not served. */
export const contentType = (name: string): string | undefined => TYPES[/\.[a-z]+$/.exec(name)?.[0] ?? ''];

type Bytes = Uint8Array<ArrayBuffer>;

export interface Asset {
  type: string;
  body: Bytes;
  /** The gzip-compressed body, when that is smaller by a worthwhile amount. */
  gzip?: Bytes;
  etag: string;
}

/** An asset from its content (compressed and tagged once). */
export function asset(type: string, content: string | Buffer): Asset {
  const body: Bytes = Uint8Array.from(typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const gzip = type !== 'image/png' && body.length > 1024 ? Uint8Array.from(gzipSync(body, { level: 9 })) : undefined;
  return gzip && gzip.length < body.length * 0.9 ? { type, body, gzip, etag } : { type, body, etag };
}

/** Answers an asset: 304 when the browser has it, else the (compressed) body, with the page headers. */
export function serveAsset(c: AppContext, a: Asset, headers: Record<string, string>): Response {
  const common = { ...headers, 'Cache-Control': 'no-cache', ETag: a.etag, Vary: 'Accept-Encoding' };
  if (c.req.header('if-none-match') === a.etag) return c.body(null, 304, common);
  const gzip = a.gzip && /\bgzip\b/.test(c.req.header('accept-encoding') ?? '');
  return c.body(gzip ? a.gzip! : a.body, 200, {
    ...common,
    'Content-Type': a.type,
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
  });
}
