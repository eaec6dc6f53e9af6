import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { openDatabase } from '../../db/client.js';

/** A stand-in for a libsql server: records every request and answers 503. */
const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function fakeServer(): Promise<{ url: string; requests: { method: string; path: string; body: string }[] }> {
  const requests: { method: string; path: string; body: string }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', body });
      res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

test('an http:// DATABASE_URL opens the remote client: the migrations go to the libsql server over HTTP', async () => {
  const server = await fakeServer();
  await expect(openDatabase(server.url)).rejects.toThrow(/__drizzle_migrations/);
  const pipeline = server.requests.filter((r) => r.method === 'POST' && /^\/v\d\/pipeline$/.test(r.path));
  expect(pipeline.length).toBeGreaterThan(0);
  expect(pipeline[0]!.body).toContain('__drizzle_migrations');
});
