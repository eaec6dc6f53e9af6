import * as v from 'valibot';
import type { Role } from '../../db/schema.js';
import { roleAtLeast } from '../../services/accounts.js';
import type { ChargeControl } from '../../services/charge-control.js';
import { forbidden } from '../../services/errors.js';
import { clientAddress, type AppContext, type AppDeps, type Router } from '../types.js';
import { jsonBody, parseWith } from '../body.js';
import { operationSucceeded } from '../errors.js';
import { OperationFailed, OperationSucceeded } from '../responses.js';

/** The lowest role that may act on any charge; below it, only on one's own (ownerOf). */
export const CHARGE_ANY_ROLE: Role = 'operator';

const ChargeCurrentBody = v.strictObject(
  { currentA: v.nullable(v.number('currentA must be a number of amperes or null')) },
  'The body must be an object {"currentA": number | null}',
);

/** GET /v1/charge: the running charge as the dashboard's controls need it. */
const ChargeStatus = v.object({
  running: v.boolean(),
  paused: v.boolean(),
  currentA: v.nullable(v.number()),
  minA: v.number(),
  maxA: v.number(),
  mayControl: v.boolean(),
  why: v.optional(v.string()),
});

type Action = 'stop' | 'pause' | 'resume';

/**
 * Extension outside the spec (docs/api-overview.md, "Run the charge"): stop, pause, resume and the current of the
 * running charge, through services/charge-control.ts (the same operations and refusals as the MQTT commands). Role
 * operator and higher act on any charge; a lower role only on its own: the transaction's tag belongs (whitelist
 * `userid`) to the charging user whose name is the account's user name.
 */
export function chargeRoutes(router: Router, { charging, users, events }: Pick<AppDeps, 'charging' | 'users' | 'events'>, control: ChargeControl): void {
  const tag = { tag: 'Charge' };

  /** Why the session may not act on the running charge; null: it may (or no charge runs: the service says so). */
  async function refusalFor(c: AppContext): Promise<string | null> {
    const { role, username } = c.var.session;
    if (roleAtLeast(role, CHARGE_ANY_ROLE)) return null;
    const tx = charging.chargePoint.state().transaction;
    if (!tx) return null;
    const owner =
      tx.userId === undefined
        ? undefined
        : await users.get(tx.userId).then(
            (u) => u.userName,
            () => undefined,
          );
    if (owner === username) return null;
    const whose =
      tx.tagId === undefined ? 'it was started without a tag' : owner === undefined ? 'its tag belongs to no user' : 'its tag belongs to another user';
    return `This charge is not yours (${whose}): a role below ${CHARGE_ANY_ROLE} may act only on a charge whose tag belongs to the user named as its account`;
  }

  async function act(c: AppContext, run: () => void, record: { action: Action | 'current'; currentA?: number | null }) {
    const why = await refusalFor(c);
    if (why) throw forbidden(why);
    run();
    events.record({ kind: 'charge_control', ...record, by: c.var.session.username, address: clientAddress(c) });
    return operationSucceeded(c);
  }

  const failures = {
    403: { description: 'Not this session’s charge (a role below operator; the cause says why)', body: OperationFailed },
    409: { description: 'Not possible now, the cause says why (no charge running, paused already, not paused, …)', body: OperationFailed },
  };

  router.resource(
    '/v1/charge',
    {
      GET: {
        summary: 'The running charge: paused, the chosen current and its range, whether this session may act on it (extension)',
        responses: { 200: { description: 'The charge as the controls need it', body: ChargeStatus } },
        handle: async (c) => {
          const running = charging.chargePoint.state().transaction !== undefined;
          const why = running ? await refusalFor(c) : null;
          const body: v.InferOutput<typeof ChargeStatus> = {
            running,
            paused: control.paused(),
            currentA: control.current(),
            ...control.range(),
            mayControl: running && why === null,
          };
          if (why) body.why = why;
          return c.json(body);
        },
      },
    },
    tag,
  );

  const actions: { action: Action; summary: string; run: () => void }[] = [
    { action: 'stop', summary: 'Stop the running charge: its transaction ends (reason Remote) (extension)', run: () => control.stop() },
    { action: 'pause', summary: 'Pause the running charge (0 A; the transaction goes on) (extension)', run: () => control.pause() },
    { action: 'resume', summary: 'Resume a charge paused by pause (extension)', run: () => control.resume() },
  ];
  for (const { action, summary, run } of actions) {
    router.resource(
      `/v1/charge/${action}`,
      {
        POST: {
          summary,
          responses: { 200: { description: 'Done', body: OperationSucceeded }, ...failures },
          handle: (c) => act(c, run, { action }),
        },
      },
      tag,
    );
  }

  router.resource(
    '/v1/charge/current',
    {
      POST: {
        summary: 'Set the current of the running charge (whole A from 6 to MaxCurrent), or with null remove it (extension)',
        description: 'A limit of its own, composed with every other (the lowest wins); it ends with the transaction.',
        body: ChargeCurrentBody,
        responses: {
          200: { description: 'Set', body: OperationSucceeded },
          400: { description: 'Not a whole number of amperes within 6 to MaxCurrent, or a malformed body', body: OperationFailed },
          ...failures,
        },
        handle: async (c) => {
          const { currentA } = parseWith(ChargeCurrentBody, await jsonBody(c));
          return act(c, () => control.setCurrent(currentA), { action: 'current', currentA });
        },
      },
    },
    tag,
  );
}
