import { OCPP_PROTOCOLS, type OcppProtocol } from './rpc-library.js';

/** OcppVersions (`ocpp2.0.1,ocpp1.6`): the versions offered to the central system, in order of preference. */
export function offeredProtocols(setting: string): OcppProtocol[] {
  const offered = setting
    .split(',')
    .map((p) => p.trim())
    .filter((p): p is OcppProtocol => (OCPP_PROTOCOLS as readonly string[]).includes(p));
  return offered.length ? [...new Set(offered)] : ['ocpp1.6'];
}
