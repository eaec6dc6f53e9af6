import type { IdTagInfo } from '../authorization.js';
import { AUTHORIZE_TIMEOUT_MS, type TagQuestion } from '../authorize.js';
import type { OcppContext } from '../context.js';

/** 2.0.1 IdTokenInfoType (the members the station uses). */
export interface IdTokenInfo {
  status: string;
  cacheExpiryDateTime?: string;
  groupIdToken?: { idToken: string; type: string };
}

const KEPT_STATUSES: ReadonlySet<string> = new Set(['Accepted', 'Blocked', 'Expired', 'Invalid', 'ConcurrentTx']);

/**
 * A 2.0.1 answer as 1.6's IdTagInfo, which the shared cache and local list store keep (authorization.ts): the
 * statuses 1.6 lacks (NoCredit, NotAllowedTypeEVSE, NotAtThisLocation, NotAtThisTime, Unknown) do not authorize and
 * are kept as Invalid; the group id token is the parent.
 */
export function idTagInfoOf(info: IdTokenInfo): IdTagInfo {
  return {
    status: (KEPT_STATUSES.has(info.status) ? info.status : 'Invalid') as IdTagInfo['status'],
    ...(info.cacheExpiryDateTime ? { expiryDate: info.cacheExpiryDateTime } : {}),
    ...(info.groupIdToken ? { parentIdTag: info.groupIdToken.idToken } : {}),
  };
}

/** The idToken of a tag the reader read (an RFID/NFC card's UID: ISO14443); free charging has none. */
export const rfidToken = (idTag: string) => ({ idToken: idTag, type: 'ISO14443' });
export const NO_AUTHORIZATION = { idToken: '', type: 'NoAuthorization' };

/** C01 Authorize of a tag read here, under the shared offline rules and cache (authorize.ts). */
export const ocpp201Question = (ctx: OcppContext): TagQuestion => ({
  maxLength: 36,
  ask: async (idTag) => idTagInfoOf((await ctx.call('Authorize', { idToken: rfidToken(idTag) }, AUTHORIZE_TIMEOUT_MS)).idTokenInfo as IdTokenInfo),
});
