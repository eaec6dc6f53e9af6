import type { AttributeType, ComponentRef, VariableDef } from './device-model-variables.js';

/** B07/B08: which variables a report holds, and each as NotifyReport's reportData carries it. */

export type ReportBase = 'ConfigurationInventory' | 'FullInventory' | 'SummaryInventory';
export type ComponentCriterion = 'Active' | 'Available' | 'Enabled' | 'Problem';

/** The key of a component as requests name it (name, instance, EVSE, connector). */
export const componentKey = (c: ComponentRef) => `${c.name}|${c.instance ?? ''}|${c.evse?.id ?? ''}|${c.evse?.connectorId ?? ''}`;

/** GetBaseReport: configuration is what the CSMS can set; summary the availability and problems. */
export function baseReport(defs: readonly VariableDef[], base: ReportBase): VariableDef[] {
  if (base === 'FullInventory') return [...defs];
  if (base === 'ConfigurationInventory') return defs.filter((d) => d.mutability !== 'ReadOnly');
  return defs.filter((d) => d.variable.name === 'AvailabilityState' || d.variable.name === 'Problem');
}

interface ComponentVariable {
  component: ComponentRef;
  variable?: { name: string; instance?: string };
}

/**
 * GetReport: the variables `componentVariable` names (a component without a variable: all of it; what a request
 * leaves out matches any), of the components meeting any of `componentCriteria` (the component's variable of the
 * criterion's name is true: Active, Available, Enabled, Problem); neither: the full inventory.
 */
export function selectReport(defs: readonly VariableDef[], componentVariable?: ComponentVariable[], componentCriteria?: ComponentCriterion[]): VariableDef[] {
  const matches = (d: VariableDef, cv: ComponentVariable) =>
    d.component.name === cv.component.name &&
    (cv.component.instance === undefined || cv.component.instance === d.component.instance) &&
    (cv.component.evse === undefined ||
      (cv.component.evse.id === d.component.evse?.id &&
        (cv.component.evse.connectorId === undefined || cv.component.evse.connectorId === d.component.evse.connectorId))) &&
    (cv.variable === undefined ||
      (cv.variable.name === d.variable.name && (cv.variable.instance === undefined || cv.variable.instance === d.variable.instance)));
  const meets = (d: VariableDef, criterion: ComponentCriterion) =>
    defs.some((v) => componentKey(v.component) === componentKey(d.component) && v.variable.name === criterion && v.actual() === 'true');
  return defs.filter(
    (d) =>
      (!componentVariable?.length || componentVariable.some((cv) => matches(d, cv))) &&
      (!componentCriteria?.length || componentCriteria.some((c) => meets(d, c))),
  );
}

/** A variable as NotifyReport's reportData: its attributes (a WriteOnly one without its value) and characteristics. */
export function reportDataOf(d: VariableDef) {
  const attribute = (type: AttributeType, value: string | undefined, mutability = d.mutability) => ({
    type,
    ...(value !== undefined && d.mutability !== 'WriteOnly' ? { value } : {}),
    mutability,
    persistent: d.persistent,
    constant: d.constant,
  });
  return {
    component: d.component,
    variable: d.variable,
    variableAttribute: [
      attribute('Actual', d.actual()),
      ...Object.entries(d.more ?? {}).map(([type, read]) => attribute(type as AttributeType, read(), 'ReadOnly')),
    ],
    variableCharacteristics: { ...d.characteristics, supportsMonitoring: false },
  };
}
