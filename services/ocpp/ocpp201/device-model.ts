import type { Database } from '../../../db/client.js';
import type { Logger } from '../../logger.js';
import type { Settings } from '../../settings/index.js';
import { createConfiguration } from '../configuration.js';
import { loadStoredKeys, type StoredKeys } from '../stored-keys.js';
import { CallError } from '../transport.js';
import { baseReport, componentKey, reportDataOf, selectReport, type ComponentCriterion, type ReportBase } from './device-model-report.js';
import {
  BYTES_PER_MESSAGE,
  deviceModelVariables,
  ITEMS_PER_MESSAGE,
  STORED_VARIABLES,
  STORED_VARIABLES_ROW,
  type AttributeType,
  type Characteristics,
  type ComponentRef,
  type StationState,
  type VariableDef,
} from './device-model-variables.js';

/**
 * The OCPP 2.0.1 device model (B05–B08): SetVariables, GetVariables, GetBaseReport and GetReport over the variables of
 * device-model-variables.ts. A variable the controller has a setting for is that setting (a set is a settings change,
 * as 1.6's ChangeConfiguration), one that is a 1.6 stored key is that key; the rest are read-only, or kept in
 * `ocpp_state` (STORED_VARIABLES).
 *
 * Interface: `await createDeviceModel(deps)` → `{ calls, value }`.
 * - deps: `settings`, `storedKeys` (the 1.6 stored keys, the same instance the metering reads), `database`, `station`
 *   (the state now: availability, power, problem, local list size), `call(action, payload)` (a call to the CSMS:
 *   NotifyReport), `later(fn)` (runs fn after the current call was answered), `now()` (wall clock, ms), `logger`.
 * - calls: the CSMS's SetVariables, GetVariables, GetBaseReport, GetReport (payload → response; a request over
 *   DeviceDataCtrlr's ItemsPerMessage or BytesPerMessage throws CallError: OccurrenceConstraintViolation,
 *   FormatViolation (1.6 spellings: transport.ts maps them per version)).
 * - value(component, variable, instance?): a variable's Actual value, as GetVariables reads it (SecurityCtrlr
 *   OrganizationName for the certificate request); undefined for an unknown or WriteOnly one. The features follow the
 *   settings and keys the mapped variables write, not this: one source of truth.
 */
export interface DeviceModelDeps {
  settings: Settings;
  storedKeys: StoredKeys;
  database: Database;
  station: StationState;
  call: (action: string, payload: Record<string, unknown>) => Promise<unknown>;
  later: (fn: () => Promise<unknown> | void) => void;
  now: () => number;
  logger: Logger;
}

interface VariableRequest {
  component: ComponentRef;
  variable: { name: string; instance?: string };
  attributeType?: AttributeType;
}

export async function createDeviceModel(deps: DeviceModelDeps) {
  const { settings, logger } = deps;
  const stored201 = await loadStoredKeys(deps.database, STORED_VARIABLES, STORED_VARIABLES_ROW);
  const configuration = createConfiguration(settings, deps.storedKeys);
  const defs = deviceModelVariables({ settings, configuration, stored: deps.storedKeys, stored201, station: deps.station, now: deps.now });
  const components = new Set(defs.map((d) => componentKey(d.component)));
  const variableKey = (c: ComponentRef, v: { name: string; instance?: string }) => `${componentKey(c)}/${v.name}|${v.instance ?? ''}`;
  const byKey = new Map(defs.map((d) => [variableKey(d.component, d.variable), d]));

  /** The variable a request names, or why none (UnknownComponent, UnknownVariable). */
  const find = (r: VariableRequest): VariableDef | 'UnknownComponent' | 'UnknownVariable' =>
    !components.has(componentKey(r.component)) ? 'UnknownComponent' : (byKey.get(variableKey(r.component, r.variable)) ?? 'UnknownVariable');
  const hasAttribute = (d: VariableDef, type: AttributeType) => type === 'Actual' || d.more?.[type] !== undefined;

  /** ItemsPerMessage and BytesPerMessage of DeviceDataCtrlr (the payload's JSON size). */
  const limit = (action: keyof typeof ITEMS_PER_MESSAGE, items: number, payload: unknown) => {
    if (items > ITEMS_PER_MESSAGE[action]) throw new CallError('OccurenceConstraintViolation', `${action}: more than ${ITEMS_PER_MESSAGE[action]} items`);
    if (Buffer.byteLength(JSON.stringify(payload)) > BYTES_PER_MESSAGE)
      throw new CallError('FormationViolation', `${action}: more than ${BYTES_PER_MESSAGE} bytes`);
  };

  /** NotifyReport in parts of ItemsPerMessage GetReport, seqNo from 0, tbc on all but the last; sent after the answer. */
  const sendReport = (requestId: number, variables: VariableDef[]) =>
    deps.later(async () => {
      const generatedAt = new Date(deps.now()).toISOString();
      const size = ITEMS_PER_MESSAGE.GetReport;
      const parts = Math.ceil(variables.length / size);
      for (let seqNo = 0; seqNo < parts; seqNo++) {
        const reportData = variables.slice(seqNo * size, (seqNo + 1) * size).map(reportDataOf);
        try {
          await deps.call('NotifyReport', { requestId, generatedAt, tbc: seqNo < parts - 1, seqNo, reportData });
        } catch (err) {
          logger.warn({ err, requestId, seqNo }, 'OCPP: NotifyReport not answered, the rest of the report dropped');
          return;
        }
      }
    });

  const report = (requestId: number, variables: VariableDef[]) => {
    if (variables.length === 0) return { status: 'EmptyResultSet' };
    sendReport(requestId, variables);
    return { status: 'Accepted' };
  };

  const calls = {
    async SetVariables(payload: { setVariableData: (VariableRequest & { attributeValue: string })[] }) {
      limit('SetVariables', payload.setVariableData.length, payload);
      const setVariableResult = [];
      for (const item of payload.setVariableData) {
        const attributeType = item.attributeType ?? 'Actual';
        const found = find(item);
        let attributeStatus: string;
        let attributeStatusInfo: { reasonCode: string; additionalInfo?: string } | undefined;
        if (typeof found === 'string') attributeStatus = found;
        else if (!hasAttribute(found, attributeType)) attributeStatus = 'NotSupportedAttributeType';
        else if (found.mutability === 'ReadOnly' || attributeType !== 'Actual' || !found.write) attributeStatus = 'Rejected';
        else {
          attributeStatus = fits(found.characteristics, item.attributeValue) ? await found.write(item.attributeValue) : 'Rejected';
          // Why a value is refused: what the variable takes (TxStartPoint: the points this station detects).
          const list = found.characteristics.valuesList;
          if (attributeStatus === 'Rejected') attributeStatusInfo = { reasonCode: 'InvalidValue', ...(list ? { additionalInfo: `supported: ${list}` } : {}) };
        }
        // Never the value: BasicAuthPassword is one.
        logger.info({ component: item.component.name, variable: item.variable.name, status: attributeStatus }, 'OCPP: SetVariables');
        setVariableResult.push({
          attributeType,
          attributeStatus,
          ...(attributeStatusInfo ? { attributeStatusInfo } : {}),
          component: item.component,
          variable: item.variable,
        });
      }
      return { setVariableResult };
    },

    GetVariables(payload: { getVariableData: VariableRequest[] }) {
      limit('GetVariables', payload.getVariableData.length, payload);
      return {
        getVariableResult: payload.getVariableData.map((item) => {
          const attributeType = item.attributeType ?? 'Actual';
          const answer = (attributeStatus: string, attributeValue?: string) => ({
            attributeStatus,
            attributeType,
            ...(attributeValue !== undefined ? { attributeValue } : {}),
            component: item.component,
            variable: item.variable,
          });
          const found = find(item);
          if (typeof found === 'string') return answer(found);
          if (!hasAttribute(found, attributeType)) return answer('NotSupportedAttributeType');
          if (found.mutability === 'WriteOnly') return answer('Rejected');
          const value = attributeType === 'Actual' ? found.actual() : found.more![attributeType]!();
          return value === undefined ? answer('Rejected') : answer('Accepted', value);
        }),
      };
    },

    GetBaseReport(payload: { requestId: number; reportBase: ReportBase }) {
      return report(payload.requestId, baseReport(defs, payload.reportBase));
    },

    GetReport(payload: {
      requestId: number;
      componentVariable?: { component: ComponentRef; variable?: { name: string; instance?: string } }[];
      componentCriteria?: ComponentCriterion[];
    }) {
      limit('GetReport', payload.componentVariable?.length ?? 0, payload);
      return report(payload.requestId, selectReport(defs, payload.componentVariable, payload.componentCriteria));
    },
  };

  return {
    calls,
    value(component: string, variable: string, instance?: string): string | undefined {
      const d = defs.find((v) => v.component.name === component && v.variable.name === variable && v.variable.instance === instance);
      return d && d.mutability !== 'WriteOnly' ? d.actual() : undefined;
    },
  };
}

export type DeviceModel = Awaited<ReturnType<typeof createDeviceModel>>;

/** Whether a value is one the variable's characteristics allow (its data type, limits, list). */
export function fits(c: Characteristics, value: string): boolean {
  const list = c.valuesList?.split(',') ?? [];
  const inLimits = (n: number) => (c.minLimit === undefined || n >= c.minLimit) && (c.maxLimit === undefined || n <= c.maxLimit);
  switch (c.dataType) {
    case 'integer':
      return /^-?\d{1,15}$/.test(value) && inLimits(Number(value));
    case 'decimal':
      return /^-?\d{1,15}(\.\d+)?$/.test(value) && inLimits(Number(value));
    case 'boolean':
      return value === 'true' || value === 'false';
    case 'dateTime':
      return !Number.isNaN(Date.parse(value));
    case 'OptionList':
      return list.includes(value);
    case 'MemberList':
    case 'SequenceList': {
      const items = value === '' ? [] : value.split(',');
      return items.every((i) => list.includes(i)) && new Set(items).size === items.length;
    }
    default:
      // string: maxLimit is the length.
      return c.maxLimit === undefined || value.length <= c.maxLimit;
  }
}
