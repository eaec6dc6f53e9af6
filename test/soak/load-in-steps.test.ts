import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';

/**
 * The MQTT and OCPP client libraries load at their first connection, on the main thread, whose silence past
 * LIVENESS_TIMEOUT_MS makes the charge-point core end the process: they load in steps, with turns of the event loop
 * between (found by the soak: every start with a central system ended that way on a busy machine). Each check runs in
 * a fresh Node process (an empty module cache), on the compiled code (`npm test` builds first).
 */
const DIST = join(import.meta.dirname, '..', '..', 'dist', 'services');

function run(script: string): any {
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

/** Counts the event loop's turns while `load` runs. */
const counting = (load: string) => `
  let turns = 0;
  let counting = true;
  const tick = () => { turns++; if (counting) setImmediate(tick); };
  setImmediate(tick);
  const lib = await ${load};
  counting = false;
`;

test('the OCPP library loads in steps, with only the OCPP 1.6 validator, and still validates strictly', () => {
  const out = run(`
    import { createRequire } from 'node:module';
    const { loadOcppRpc } = await import(${JSON.stringify(join(DIST, 'ocpp', 'rpc-library.js'))});
    ${counting('loadOcppRpc()')}
    const validators = Object.values(createRequire(process.cwd() + '/').cache)
      .find((m) => m.filename.endsWith('standard-validators.js')).exports;
    let refused = '';
    try { validators[0].validate('urn:BootNotification.req', {}); } catch (err) { refused = err.rpcErrorCode ?? err.message; }
    console.log(JSON.stringify({ turns, subprotocols: validators.map((v) => v.subprotocol), refused, client: typeof lib.RPCClient }));
  `);
  expect(out.subprotocols).toEqual(['ocpp1.6']);
  expect(out.refused).toBe('OccurenceConstraintViolation'); // a required field missing
  expect(out.client).toBe('function');
  expect(out.turns).toBeGreaterThanOrEqual(4);
});

test('the MQTT library loads in steps: a turn of the event loop per dependency', () => {
  const out = run(`
    const { loadInSteps } = await import(${JSON.stringify(join(DIST, 'load-in-steps.js'))});
    ${counting("loadInSteps('mqtt', () => import('mqtt'))")}
    console.log(JSON.stringify({ turns, connect: typeof lib.connect }));
  `);
  expect(out.connect).toBe('function');
  expect(out.turns).toBeGreaterThanOrEqual(10);
});
