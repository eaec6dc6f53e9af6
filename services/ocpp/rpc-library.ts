import { createRequire } from 'node:module';
import { setImmediate as nextTurn } from 'node:timers/promises';

type RpcLibrary = typeof import('ocpp-rpc');
/** ocpp-rpc's validator factory (lib/validator.js). */
type CreateValidator = (subprotocol: string, schemas: unknown) => unknown;

const require = createRequire(import.meta.url);
const entry = require.resolve('ocpp-rpc');
const fromLibrary = createRequire(entry);

let library: Promise<RpcLibrary> | undefined;

/**
 * ocpp-rpc, loaded for the first connection (a controller without a central system does not carry it), in steps with
 * a turn of the event loop between them. Loaded in one piece it held the main thread for 1.0–1.6 s on a busy 2-core
 * machine (issue 34's soak), longer than the core's liveness watch allows (LIVENESS_TIMEOUT_MS): the core opened the
 * contactor and ended the process at every start with a central system. Most of it was ajv building validators for
 * OCPP 2.0.1 and 2.1 besides 1.6 (lib/standard-validators.js); only the 1.6 one is built here, in its own step, and
 * the library's list of standard validators is that one (the charge point and the development central system speak
 * only 1.6).
 */
export function loadOcppRpc(): Promise<RpcLibrary> {
  return (library ??= load());
}

async function load(): Promise<RpcLibrary> {
  for (const dependency of ['ajv', 'ajv-formats', 'ws']) {
    fromLibrary(dependency);
    await nextTurn();
  }
  const standardPath = fromLibrary.resolve('./lib/standard-validators.js');
  if (!require.cache[standardPath]) {
    const { createValidator } = fromLibrary('./lib/validator.js') as { createValidator: CreateValidator };
    await nextTurn();
    const schemas: unknown = fromLibrary('./lib/schemas/ocpp1_6.json');
    await nextTurn();
    const validators = [createValidator('ocpp1.6', schemas)];
    await nextTurn();
    const module = new (require('node:module') as { Module: new (id: string) => NodeJS.Module }).Module(standardPath);
    Object.assign(module, { filename: standardPath, loaded: true, exports: validators });
    require.cache[standardPath] = module;
  }
  return (await import('ocpp-rpc')) as RpcLibrary;
}
