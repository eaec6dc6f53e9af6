import { createServer } from 'node:net';
import { expect, test } from 'vitest';
import { serveAedes } from '../../bin/dev/aedes-broker.js';

test('a port already taken rejects the start with EADDRINUSE (before: an uncaught error, and the start never settled)', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address() as { port: number };
  try {
    await expect(serveAedes([{ port: 0 }, { port }])).rejects.toMatchObject({ code: 'EADDRINUSE' });
    const broker = await serveAedes([{ port: 0 }]);
    expect(broker.ports[0]).toBeGreaterThan(0);
    await broker.stop();
  } finally {
    holder.close();
  }
});
