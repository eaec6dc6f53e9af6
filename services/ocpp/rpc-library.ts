import { createRequire, Module } from 'node:module';
import { loadInSteps } from '../load-in-steps.js';

type RpcLibrary = typeof import('ocpp-rpc');
/** ocpp-rpc's validator factory (lib/validator.js) and what it builds. */
type Validator = { subprotocol: string };
type CreateValidator = (subprotocol: string, schemas: unknown) => Validator;

/** The OCPP-J subprotocols the controller speaks, and each one's schema file in ocpp-rpc. */
export const OCPP_PROTOCOLS = ['ocpp1.6', 'ocpp2.0.1'] as const;
export type OcppProtocol = (typeof OCPP_PROTOCOLS)[number];
const SCHEMAS: Record<OcppProtocol, string> = { 'ocpp1.6': './lib/schemas/ocpp1_6.json', 'ocpp2.0.1': './lib/schemas/ocpp2_0_1.json' };

let library: Promise<RpcLibrary> | undefined;
const built = new Map<OcppProtocol, Promise<Validator>>();

/**
 * ocpp-rpc, loaded for the first connection (a controller without a central system does not carry it), in steps
 * (services/load-in-steps.ts). Most of its load was ajv building validators for OCPP 2.0.1 and 2.1 besides 1.6
 * (lib/standard-validators.js): only the 1.6 one is built, in a step of its own, and it is the library's whole list of
 * standard validators (the development central system, bin/dev, imports the library itself, with every validator,
 * and a process that loads it first keeps them all). The 2.0.1 validator is built only when OcppVersions offers
 * 2.0.1 (`validators`), in a turn of its own, and given to the client (strictModeValidators).
 */
export function loadOcppRpc(): Promise<RpcLibrary> {
  return (library ??= loadInSteps('ocpp-rpc', () => import('ocpp-rpc') as Promise<RpcLibrary>, [
    (require) => {
      const path = require.resolve('./lib/standard-validators.js');
      if (require.cache[path]) return;
      const module = new Module(path);
      Object.assign(module, { filename: path, loaded: true, exports: [buildValidator(require, 'ocpp1.6')] });
      require.cache[path] = module;
    },
  ]));
}

function buildValidator(require: NodeJS.Require, protocol: OcppProtocol): Validator {
  const { createValidator } = require('./lib/validator.js') as { createValidator: CreateValidator };
  return createValidator(protocol, require(SCHEMAS[protocol]));
}

/** The strict validators of `protocols` beside the library's own (1.6), each built once, in a turn of its own. */
export async function validatorsFor(protocols: readonly OcppProtocol[]): Promise<Validator[]> {
  await loadOcppRpc();
  const validators: Validator[] = [];
  for (const protocol of protocols) {
    if (protocol === 'ocpp1.6') continue;
    let validator = built.get(protocol);
    if (!validator) {
      const fromPackage = createRequire(createRequire(import.meta.url).resolve('ocpp-rpc'));
      validator = new Promise<void>((resolve) => setImmediate(resolve)).then(() => buildValidator(fromPackage, protocol));
      built.set(protocol, validator);
    }
    validators.push(await validator);
  }
  return validators;
}
