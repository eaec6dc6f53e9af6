import type { AuthorizationStore, IdTagInfo } from './authorization.js';
import type { IncomingCalls, OcppContext } from './context.js';

/** A tag read waits at most this long for the central system's Authorize answer, then the offline rules apply. */
export const AUTHORIZE_TIMEOUT_MS = 10_000;

/**
 * Tags the local whitelist does not know (services/charging.ts's tag path): the OCPP local list and cache, Authorize
 * while online, the offline rules otherwise; and the central system's calls on the list and the cache.
 */
/** How a version asks the central system about a tag (1.6 here, 2.0.1 in ocpp201/authorize.ts). */
export interface TagQuestion {
  /** The longest tag id the version carries (1.6 idTag: 20, 2.0.1 idToken: 36). */
  maxLength: number;
  /** Authorize: the central system's answer as 1.6's IdTagInfo (the shared cache keeps it so). */
  ask(idTag: string): Promise<IdTagInfo>;
}

export const ocpp16Question = (ctx: OcppContext): TagQuestion => ({
  maxLength: 20,
  ask: async (idTag) => (await ctx.call('Authorize', { idTag }, AUTHORIZE_TIMEOUT_MS)).idTagInfo as IdTagInfo,
});

export function createAuthorization(ctx: OcppContext, auth: AuthorizationStore, question: TagQuestion = ocpp16Question(ctx)) {
  const { on } = ctx;

  async function authorize(idTag: string): Promise<boolean> {
    if (idTag.length > question.maxLength) return false; // not an OCPP idTag
    const local = (on('OCPPWLEnabled') && (await auth.inLocalList(idTag))) || (on('OcppAuthorizationCacheEnabled') && (await auth.inCache(idTag)));
    if (ctx.isAccepted()) {
      if (local && on('OcppLocalPreAuthorize')) return true;
      try {
        const info = await question.ask(idTag);
        if (on('OcppAuthorizationCacheEnabled')) await auth.remember(idTag, info);
        return info.status === 'Accepted';
      } catch (err) {
        ctx.logger.warn({ error: (err as Error).message }, 'OCPP: Authorize got no answer: the offline rules decide');
      }
    }
    if (local) return on('OcppLocalAuthorizeOffline');
    return on('OcppAllowOfflineTxForUnknownId');
  }

  const calls: IncomingCalls = {
    ClearCache: async () => {
      await auth.clearCache();
      return { status: 'Accepted' };
    },
    GetLocalListVersion: async () => ({ listVersion: on('OCPPWLEnabled') ? await auth.listVersion() : -1 }),
    SendLocalList: async (p) => ({ status: await auth.sendLocalList(p as never) }),
  };

  return { authorize, calls };
}
