import { createRequire } from 'node:module';
import { OCPP20 } from 'typed-ocpp';
import { expect } from 'vitest';
import type { SmartCharging201, SmartCharging201Deps } from '../../services/ocpp/ocpp201/smart-charging.js';

/**
 * The central system's side of the 2.0.1 smart charging tests: every request, response and message the charging
 * station sends checked by ocpp-rpc's strict 2.0.1 validator (the one its strict mode applies on the wire) and by
 * typed-ocpp's 2.0.1 schemas (the independent second validator), the answer also against its call.
 */

type StrictValidator = { validate(schemaId: string, params: unknown): boolean };
const require = createRequire(import.meta.url);
const { createValidator } = require('ocpp-rpc/lib/validator.js') as { createValidator: (protocol: string, schemas: unknown) => StrictValidator };
const strict = createValidator('ocpp2.0.1', require('ocpp-rpc/lib/schemas/ocpp2_0_1.json'));

let messageId = 0;

/** Checks one call and its answer with both validators (throws with the reasons on a refusal). */
export function checkExchange(action: string, request: unknown, response: unknown): void {
  strict.validate(`urn:${action}.req`, request);
  strict.validate(`urn:${action}.conf`, response);
  const id = `m${++messageId}`;
  const call = [2, id, action, request] as unknown as OCPP20.Call;
  expect(OCPP20.validate(call), `${action} request: ${OCPP20.validate.errors?.join('; ')}`).toBe(true);
  const result = [3, id, response] as unknown as OCPP20.CallResult;
  expect(OCPP20.validate(result), `${action} response: ${OCPP20.validate.errors?.join('; ')}`).toBe(true);
  expect(OCPP20.checkCallResult(result, call), `${action} response: ${OCPP20.checkCallResult.errors?.join('; ')}`).toBe(true);
}

type Answer = Record<string, any>;

/** The CSMS's side: its calls to the module's handlers, the station's ReportChargingProfiles, the work run `later`. */
export function centralSystem() {
  const reports: OCPP20.ReportChargingProfilesRequest[] = [];
  const afterAnswer: Array<() => Promise<unknown> | void> = [];
  const deps: Pick<SmartCharging201Deps, 'call' | 'later'> = {
    call: async (action, payload) => {
      reports.push(payload);
      checkExchange(action, payload, {});
      return {};
    },
    later: (fn) => afterAnswer.push(fn),
  };
  return {
    deps,
    reports,
    /** The CSMS calls `action` with `request`: both validated, the answer too. */
    async call(smart: SmartCharging201, action: keyof SmartCharging201['calls'], request: Record<string, unknown>): Promise<Answer> {
      strict.validate(`urn:${action}.req`, request);
      const handler = smart.calls[action] as (p: unknown) => unknown;
      const response = (await handler(request)) as Answer;
      checkExchange(action, request, response);
      return response;
    },
    /** Runs what the station does after its answers (the reports). */
    async afterAnswers(): Promise<void> {
      for (const fn of afterAnswer.splice(0)) await fn();
    },
  };
}

/** A 2.0.1 charging profile with one schedule of `periods` (limit in A at 0 by default). */
export function profile201(id: number, purpose: string, limit: number, more: Record<string, unknown> = {}, schedule: Record<string, unknown> = {}) {
  return {
    id,
    stackLevel: 0,
    chargingProfilePurpose: purpose,
    chargingProfileKind: 'Relative',
    chargingSchedule: [{ id, chargingRateUnit: 'A', chargingSchedulePeriod: [{ startPeriod: 0, limit }], ...schedule }],
    ...more,
  };
}
