import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AppEnv } from './app.js';

export interface HttpServer {
  /** The port actually bound (differs from the requested one when that was 0). */
  port: number;
  /** Stops accepting connections and resolves once in-flight requests finished (or `graceMs` passed). */
  close(graceMs?: number): Promise<void>;
}

/** Serves the app over HTTP on `host:port`; resolves once listening. */
export function listen(app: Hono<AppEnv>, port: number, host: string): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname: host }) as Server;
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : port,
        close: (graceMs = 10_000) =>
          new Promise<void>((done) => {
            // In-flight requests finish; connections are closed as soon as they fall idle (keep-alive included).
            const idle = setInterval(() => server.closeIdleConnections(), 50);
            const force = setTimeout(() => server.closeAllConnections(), graceMs);
            server.close(() => {
              clearInterval(idle);
              clearTimeout(force);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
