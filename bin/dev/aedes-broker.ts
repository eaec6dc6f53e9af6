import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { Aedes, type AedesOptions } from 'aedes';

/**
 * An aedes MQTT broker in this process on 127.0.0.1, for the energy benchmark's site and the tests' brokers
 * (test/mqtt/broker.ts): one listener per port (0: a free one), plain or TLS. `stop` drops every connection at once
 * (the clients see the broker vanish, as when it crashes) and closes the broker; nothing retained survives.
 */

export interface AedesListener {
  port: number;
  /** TLS with this certificate and key (PEM); plain TCP without. */
  tls?: { cert: Buffer; key: Buffer };
}

export interface AedesBroker {
  /** The ports listened on, in the order of the listeners. */
  ports: number[];
  stop(): Promise<void>;
}

export async function serveAedes(listeners: AedesListener[], options?: AedesOptions): Promise<AedesBroker> {
  const broker = await Aedes.createBroker(options);
  const sockets = new Set<Socket>();
  const handle = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    broker.handle(socket);
  };
  const servers: Server[] = listeners.map((l) => (l.tls ? createTlsServer({ cert: l.tls.cert, key: l.tls.key }, handle) : createServer(handle)));
  const ports: number[] = [];
  try {
    for (const [i, server] of servers.entries()) {
      // A port taken meanwhile (EADDRINUSE) rejects here instead of throwing from the server's 'error' event.
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(listeners[i]!.port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      ports.push((server.address() as { port: number }).port);
    }
  } catch (err) {
    for (const server of servers) if (server.listening) server.close();
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    throw err;
  }
  return {
    ports,
    async stop() {
      for (const s of sockets) s.destroy();
      for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => broker.close(() => resolve()));
    },
  };
}
