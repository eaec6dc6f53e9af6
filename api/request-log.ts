import { getPath } from 'hono/utils/url';
import { logRequest, type Logger } from '../services/logger.js';

/** Called once per answered request (the metrics count requests by route and status). */
export type RequestObserver = (method: string, path: string, status: number) => void;

/**
 * Wraps a fetch handler with the request log: one line per request with method, path, status and duration; and
 * tells `observe` about each request.
 */
export function withRequestLog<E>(
  fetch: (request: Request, env?: E) => Response | Promise<Response>,
  logger: Logger,
  observe?: RequestObserver,
): (request: Request, env?: E) => Response | Promise<Response> {
  const logged = (request: Request, response: Response, started: number): Response => {
    const path = getPath(request);
    logRequest(logger, request.method, path, response.status, Math.round((performance.now() - started) * 10) / 10);
    observe?.(request.method, path, response.status);
    return response;
  };
  return (request, env) => {
    const started = performance.now();
    const response = fetch(request, env);
    return response instanceof Promise ? response.then((r) => logged(request, r, started)) : logged(request, response, started);
  };
}

/**
 * The route pattern a path matches among an app's routes (`/v1/users/:userId` for `/v1/users/42…`), `unmatched`
 * when none does: a bounded set of labels whatever paths clients send.
 */
export function routeOf(routes: ReadonlyArray<{ path: string }>): (path: string) => string {
  const exact = new Set<string>();
  const patterns: Array<{ route: string; re: RegExp }> = [];
  for (const { path } of routes) {
    if (!/[:*]/.test(path)) exact.add(path);
    else if (!patterns.some((p) => p.route === path)) {
      const re = new RegExp(
        `^${path
          .split('/')
          .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
          .join('/')}$`,
      );
      patterns.push({ route: path, re });
    }
  }
  return (path) => (exact.has(path) ? path : (patterns.find((p) => p.re.test(path))?.route ?? 'unmatched'));
}
