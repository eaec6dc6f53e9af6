import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterEach, expect, test } from 'vitest';
import { until, useOcppChargers } from './support.js';

/**
 * GetDiagnostics (OCPP 1.6 Firmware Management) against the strict central system with its second validator: the
 * bundle is uploaded with HTTP PUT to a local server standing in for the central system's file store, reported by
 * DiagnosticsStatusNotification; retries per the request on the controller's clock; only http(s) locations.
 */

const { charger } = useOcppChargers();

interface Upload {
  method: string;
  url: string;
  authorization: string | undefined;
  body: Buffer;
}

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
});

/** A file store: answers each upload with the next status of `statuses` (then 201). */
async function fileStore(statuses: number[] = []) {
  const uploads: Upload[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      uploads.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body: Buffer.concat(chunks) });
      res.statusCode = statuses.shift() ?? 201;
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { uploads, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const statuses = (c: Awaited<ReturnType<typeof charger>>) => c.csms.calls('DiagnosticsStatusNotification').map((p: any) => p.status);

test('GetDiagnostics: the bundle is PUT to the location (file name appended to a folder), Uploading then Uploaded', async () => {
  const c = await charger();
  await c.online();
  const store = await fileStore();
  const answer = (await c.csms.call('GetDiagnostics', { location: `${store.url.replace('//', '//cs:pa%24%24@')}/diagnostics/` })) as { fileName: string };
  expect(answer.fileName).toMatch(/^diagnostics-.*\.json\.gz$/);
  await until(c, () => statuses(c).includes('Uploaded'), 'the upload');
  expect(statuses(c)).toEqual(['Uploading', 'Uploaded']);
  expect(store.uploads).toHaveLength(1);
  const [upload] = store.uploads;
  expect(upload!.method).toBe('PUT');
  expect(upload!.url).toBe(`/diagnostics/${answer.fileName}`);
  expect(upload!.authorization).toBe(`Basic ${Buffer.from('cs:pa$$').toString('base64')}`);
  const bundle = JSON.parse(gunzipSync(upload!.body).toString('utf8'));
  expect(bundle).toMatchObject({ format: 'charge-controller-diagnostics', databaseIntegrity: ['ok'] });
  expect(bundle.events.some((e: any) => e.kind === 'backend' && e.state === 'connected')).toBe(true);
});

test('a failed upload is tried again after retryInterval (controller clock); when every try failed, UploadFailed', async () => {
  const c = await charger();
  await c.online();
  const flaky = await fileStore([503]);
  await c.csms.call('GetDiagnostics', { location: `${flaky.url}/up.json.gz`, retries: 1, retryInterval: 30 });
  await until(c, () => flaky.uploads.length === 1, 'the first try');
  await c.step(29_000);
  expect(flaky.uploads).toHaveLength(1);
  await c.step(1_000);
  await until(c, () => statuses(c).includes('Uploaded'), 'the second try');
  expect(flaky.uploads.map((u) => u.url)).toEqual(['/up.json.gz', '/up.json.gz']);
  expect(statuses(c)).toEqual(['Uploading', 'Uploaded']);

  const broken = await fileStore([500, 500, 500]);
  await c.csms.call('GetDiagnostics', { location: `${broken.url}/x`, retries: 0 });
  await until(c, () => statuses(c).includes('UploadFailed'), 'the failure');
  expect(broken.uploads).toHaveLength(1);
  expect(statuses(c)).toEqual(['Uploading', 'Uploaded', 'Uploading', 'UploadFailed']);
});

test('only http and https locations; a second request while one uploads is refused', async () => {
  const c = await charger();
  await c.online();
  await expect(c.csms.call('GetDiagnostics', { location: 'ftp://files.example.com/diag/' })).rejects.toMatchObject({
    rpcErrorCode: 'PropertyConstraintViolation',
    message: expect.stringMatching(/http:\/\/ and https:\/\/ only, not ftp:/),
  });
  const store = await fileStore([503]);
  await c.csms.call('GetDiagnostics', { location: `${store.url}/a`, retries: 1, retryInterval: 60 });
  await until(c, () => store.uploads.length === 1, 'the first try');
  await expect(c.csms.call('GetDiagnostics', { location: `${store.url}/b` })).rejects.toMatchObject({ rpcErrorCode: 'GenericError' });
  await c.step(60_000);
  await until(c, () => statuses(c).includes('Uploaded'), 'the retry');
  expect(store.uploads.map((u) => u.url)).toEqual(['/a', '/a']);
});
