import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { serve } from '@hono/node-server';
import type { Bindings, Fetch } from './app.js';

export interface HttpServer {
  /** The port actually bound (differs from the requested one when that was 0). */
  port: number;
  /** Stops accepting connections and resolves once in-flight requests finished (or `graceMs` passed). */
  close(graceMs?: number): Promise<void>;
}

/**
 * Requests Node's HTTP parser refuses before they reach the app (a request line or headers over its 16 KiB limit,
 * broken framing) get the spec's 400 with an OperationFailed body instead of Node's bare 431/400.
 */
function answerMalformedRequest(err: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const cause =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'The request line or headers are too large (over 16 KiB); shorten the path or query'
      : 'Malformed HTTP request';
  const body = JSON.stringify({ success: false, cause });
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Serves the API over HTTP on `host:port`; resolves once listening. */
export function listen(fetch: Fetch, port: number, host: string): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: (request, env) => fetch(request, env as Bindings), port, hostname: host }) as Server;
    server.on('clientError', answerMalformedRequest);
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
