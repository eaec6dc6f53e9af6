import * as v from 'valibot';
import type { Role } from '../../db/schema.js';
import { secretEquals } from '../../machines/secrets.js';
import { roleAtLeast } from '../../services/accounts.js';
import type { EnergyInputsService } from '../../services/energy/inputs.js';
import { forbidden } from '../../services/errors.js';
import type { Settings } from '../../services/settings/index.js';
import type { Sessions } from '../../services/sessions.js';
import { jsonBody, parseWith } from '../body.js';
import { SessionError } from '../errors.js';
import { NotLoggedIn, OperationFailed } from '../responses.js';
import { clientAddress, type AppContext, type Router } from '../types.js';

/** The lowest role that may push energy inputs with a session. */
export const ENERGY_PUSH_ROLE: Role = 'installer';

const finite = v.number();
const GridBody = v.strictObject({ powerW: v.union([finite, v.pipe(v.array(finite), v.length(3))]) });
const OperatorBody = v.union([v.strictObject({ limitW: v.nullable(finite) }), v.strictObject({ limitA: v.nullable(finite) })]);
const Taken = v.object({ success: v.literal(true) });

/**
 * Extension outside the spec: a home energy system pushes the grid power (`POST /v1/energy/grid`) and the grid
 * operator's limit (`POST /v1/energy/grid-operator`, each push its heartbeat), where the settings choose HTTP as
 * their input. Allowed with a session of role installer or higher, or with `Authorization: Bearer <EnergyPushToken>`
 * (compared in constant time) where that setting is set: a machine should not hold a login. A bad body is 400 and
 * takes nothing; an input the settings do not take over HTTP is 409. Shared by every transport (HTTP and NFC).
 */
export function energyInputRoutes(router: Router, deps: { sessions: Sessions; settings: Pick<Settings, 'get'>; inputs: EnergyInputsService }): void {
  const { sessions, settings, inputs } = deps;

  /** A valid bearer token, or a valid session of role installer or higher; throws 401/403 otherwise. */
  const allowed = async (c: AppContext) => {
    const header = c.req.header('authorization') ?? '';
    const token = settings.get('EnergyPushToken');
    const bearer = /^Bearer (.+)$/.exec(header)?.[1];
    if (bearer !== undefined && token !== '') {
      if (secretEquals(token, bearer)) return;
    }
    const verdict = sessions.authenticate(header || undefined, clientAddress(c));
    if ('code' in verdict) throw new SessionError(verdict.code);
    if (!(await sessions.accountHolds(verdict.session))) throw new SessionError(1003);
    if (!roleAtLeast(verdict.session.role, ENERGY_PUSH_ROLE))
      throw forbidden(`Pushing energy inputs needs a session of role ${ENERGY_PUSH_ROLE} or higher, or the EnergyPushToken`);
  };

  const responses = (what: string) => ({
    200: { description: `The ${what} is taken (its time is now)`, body: Taken },
    400: { description: 'A malformed body or a value out of range: nothing is taken', body: OperationFailed },
    401: { description: 'No valid session and no valid bearer token', body: NotLoggedIn },
    403: { description: `A session below role ${ENERGY_PUSH_ROLE}`, body: OperationFailed },
    409: { description: `The settings do not take the ${what} over HTTP`, body: OperationFailed },
  });

  router.resource(
    '/v1/energy/grid',
    {
      POST: {
        summary: 'Push the grid connection point’s power (W, import positive): total or [L1, L2, L3]',
        description: 'Taken where GridPowerSource is HTTP push; docs/energy.md, Inputs. A total is spread equally over the three lines.',
        role: ENERGY_PUSH_ROLE,
        body: { schema: GridBody, required: true, description: '{"powerW": 1200} or {"powerW": [400, -300, 1100]}' },
        responses: responses('grid power'),
        handle: async (c) => {
          await allowed(c);
          inputs.pushGridPower(parseWith(GridBody, await jsonBody(c)));
          return c.json({ success: true as const });
        },
      },
    },
    { public: true, tag: 'Energy' },
  );
  router.resource(
    '/v1/energy/grid-operator',
    {
      POST: {
        summary: 'Push the grid operator’s limit (W or A per phase; null: unlimited); every push is the heartbeat',
        description: 'Taken where GridOperatorSource is HTTP push; without a push for the heartbeat time the failsafe limit applies (docs/energy.md).',
        role: ENERGY_PUSH_ROLE,
        body: { schema: OperatorBody, required: true, description: '{"limitW": 4200}, {"limitA": 6} or {"limitW": null}' },
        responses: responses('grid-operator limit'),
        handle: async (c) => {
          await allowed(c);
          inputs.pushGridOperator(parseWith(OperatorBody, await jsonBody(c)));
          return c.json({ success: true as const });
        },
      },
    },
    { public: true, tag: 'Energy' },
  );
}
