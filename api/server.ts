import { createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { Bindings, Fetch } from './types.js';
import { INTERNAL_ERROR_CAUSE, NO_SNIFF, operationFailedText } from './errors.js';

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
    err.code === 'HPE_HEADER_OVERFLOW' ? 'The request line or headers are too large (over 16 KiB); shorten the path or query' : 'Malformed HTTP request';
  const body = operationFailedText(cause);
  socket.end(
    'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Requests @hono/node-server cannot turn into a `Request` (a missing or malformed Host header, a backslash in the
 * path, a target such as `*` that is no path) get the same 400 OperationFailed instead of its empty 400.
 */
function answerUnroutableRequest(err: unknown): Response {
  const [status, cause] = err instanceof RequestError ? [400, `Malformed HTTP request: ${err.message}`] : [500, INTERNAL_ERROR_CAUSE];
  return new Response(operationFailedText(cause), { status, headers: { 'content-type': 'application/json', ...NO_SNIFF } });
}

/** Serves the API over HTTP on `host:port`; resolves once listening. */
export function listen(fetch: Fetch, port: number, host: string): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    const listener = getRequestListener((request, env) => fetch(request, env as Bindings), { errorHandler: answerUnroutableRequest });
    // Node's own check of the Host header answers an empty 400; the listener's check answers ours. (Every request
    // needs a Host header, as HTTP/1.1 requires.)
    // The listener answers its own errors (errorHandler above, a 500 otherwise): its promise never rejects.
    const server = createServer({ requireHostHeader: false }, (req, res) => void listener(req, res));
    server.on('clientError', answerMalformedRequest);
    server.once('error', reject);
    server.listen(port, host);
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
