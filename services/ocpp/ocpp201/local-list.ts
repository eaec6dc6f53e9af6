import type { AuthorizationStore } from '../authorization.js';
import type { OcppContext } from '../context.js';
import { idTagInfoOf } from './authorize.js';
import type { IncomingCalls201 } from './calls.js';

/**
 * C and D over the store 1.6 shares (authorization.ts): ClearCache, SendLocalList (Full/Differential; an entry
 * without idTokenInfo is removed), GetLocalListVersion (0 while the list is off: OCPPWLEnabled).
 */
export function localListCalls201(ctx: OcppContext, auth: AuthorizationStore): IncomingCalls201 {
  return {
    ClearCache: async () => {
      await auth.clearCache();
      return { status: 'Accepted' };
    },
    GetLocalListVersion: async () => ({ versionNumber: ctx.on('OCPPWLEnabled') ? await auth.listVersion() : 0 }),
    SendLocalList: async (p) => ({
      status: await auth.sendLocalList({
        listVersion: p.versionNumber,
        updateType: p.updateType,
        localAuthorizationList: (p.localAuthorizationList ?? []).map((e) => ({
          idTag: e.idToken.idToken,
          ...(e.idTokenInfo ? { idTagInfo: idTagInfoOf(e.idTokenInfo) } : {}),
        })),
      }),
    }),
  };
}
