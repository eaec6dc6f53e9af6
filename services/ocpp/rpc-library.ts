import { Module } from 'node:module';
import { loadInSteps } from '../load-in-steps.js';

type RpcLibrary = typeof import('ocpp-rpc');
/** ocpp-rpc's validator factory (lib/validator.js). */
type CreateValidator = (subprotocol: string, schemas: unknown) => unknown;

let library: Promise<RpcLibrary> | undefined;

/**
 * ocpp-rpc, loaded for the first connection (a controller without a central system does not carry it), in steps
 * (services/load-in-steps.ts). Most of its load was ajv building validators for OCPP 2.0.1 and 2.1 besides 1.6
 * (lib/standard-validators.js): only the 1.6 one is built, in a step of its own, and it is the library's whole list of
 * standard validators (the charge point speaks only 1.6; the development central system, bin/dev, imports the library
 * itself, with every validator, and a process that loads it first keeps them all). A 2.0.1 charging station
 * (issue 31) adds its validator here.
 */
export function loadOcppRpc(): Promise<RpcLibrary> {
  return (library ??= loadInSteps('ocpp-rpc', () => import('ocpp-rpc') as Promise<RpcLibrary>, [
    (fromPackage) => {
      const path = fromPackage.resolve('./lib/standard-validators.js');
      if (fromPackage.cache[path]) return;
      const { createValidator } = fromPackage('./lib/validator.js') as { createValidator: CreateValidator };
      const module = new Module(path);
      Object.assign(module, { filename: path, loaded: true, exports: [createValidator('ocpp1.6', fromPackage('./lib/schemas/ocpp1_6.json'))] });
      fromPackage.cache[path] = module;
    },
  ]));
}
