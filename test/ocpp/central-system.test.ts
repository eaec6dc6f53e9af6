import { connect } from 'node:net';
import { expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { startCsms } from '../../bin/dev/central-system.js';

/** Sends an upgrade request for `path` by hand (a WebSocket client would refuse the malformed path) and waits for the close. */
function rawUpgrade(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: ocpp1.6\r\n\r\n',
      );
    });
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => resolve(received));
    socket.setTimeout(5000, () => reject(new Error('the central system kept the socket open')));
  });
}

test('an upgrade with a malformed path closes that socket and leaves the central system serving', async () => {
  const csms = await startCsms();
  try {
    await rawUpgrade(csms.port, '/ocpp/%E0%A4%A');
    const ws = new WebSocket(`${csms.url}/CP1`, 'ocpp1.6');
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    expect(csms.connections).toEqual(['CP1']);
    ws.close();
  } finally {
    await csms.close();
  }
});
