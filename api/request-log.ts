import { getPath } from 'hono/utils/url';
import { logRequest, type Logger } from '../services/logger.js';

/** Wraps a fetch handler with the request log: one line per request with method, path, status and duration. */
export function withRequestLog<E>(
  fetch: (request: Request, env?: E) => Response | Promise<Response>,
  logger: Logger,
): (request: Request, env?: E) => Response | Promise<Response> {
  const logged = (request: Request, response: Response, started: number): Response => {
    logRequest(logger, request.method, getPath(request), response.status, Math.round((performance.now() - started) * 10) / 10);
    return response;
  };
  return (request, env) => {
    const started = performance.now();
    const response = fetch(request, env);
    return response instanceof Promise ? response.then((r) => logged(request, r, started)) : logged(request, response, started);
  };
}
