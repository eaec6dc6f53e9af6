import type { IncomingMessage } from 'node:http';

/**
 * What a transport (HTTP in api/server.ts, NFC in services/nfc/) hands the API application: the request and its
 * bindings. Here, below both, so the NFC transport needs nothing of api/.
 */

/**
 * Transport bindings. Over HTTP, @hono/node-server passes the Node request (`incoming`); another transport (NFC)
 * passes `clientAddress`, the address a session is bound to.
 */
export type Bindings = { incoming?: IncomingMessage; clientAddress?: string };

/** A fetch handler: the app's request → response, as every transport calls it. */
export type Fetch = (request: Request, env?: Bindings) => Response | Promise<Response>;
