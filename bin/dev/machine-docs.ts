import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { chargeCycleMachine, FLOW_GUARDS, GUARD_DESCRIPTIONS, type StateMeta } from '../../machines/charge-cycle.js';
import { pairingMachine } from '../../machines/pairing.js';
import { statePath, transitionTable } from '../../machines/transitions.js';
import { HMI_PATTERNS, hmiState } from '../../services/core/hmi.js';

const cell = (text: string) => text.replace(/\|/g, '\\|');

function atomicStates(machine: AnyStateMachine): AnyStateNode[] {
  const out: AnyStateNode[] = [];
  const visit = (node: AnyStateNode) => {
    const children = Object.values(node.states) as AnyStateNode[];
    if (children.length === 0) out.push(node);
    children.forEach(visit);
  };
  visit(machine.root);
  return out;
}

function transitionsSection(machine: AnyStateMachine): string[] {
  const lines = ['| # | from | trigger | guard | to | actions |', '|---|---|---|---|---|---|'];
  transitionTable(machine).forEach((r, i) => {
    lines.push(`| ${i + 1} | \`${r.source}\` | ${cell(r.trigger)} | ${cell(r.guard)} | \`${r.target}\` | ${cell(r.actions.join(', '))} |`);
  });
  return lines;
}

/**
 * docs/charge-cycle.md, generated from the machines (`npm run docs`); a test fails when the file is out of date, so
 * the table cannot drift from the code.
 */
export function renderMachineDocs(): string {
  const lines: string[] = [
    '# Charge cycle and pairing: states and transitions',
    '',
    '<!-- Generated from machines/charge-cycle.ts and machines/pairing.ts by `npm run docs`. Do not edit. -->',
    '',
    'The spec lists the state sets (2.13) but not the transitions; this is the design, after IEC 61851-1 (control',
    'pilot), the session/transaction definition of EVerest, and the OCPP 1.6 status mapping',
    '(`shared/reference/charge-cycle.md`). Inputs: the debounced CP level (PILOT, 40 ms), tags checked against the',
    'whitelist (TAG), settings (SETTINGS), the load-management limit (LOAD_LIMIT) and hardware faults (FAULT).',
    'PILOT, SETTINGS, LOAD_LIMIT and FAULT only update the context at the root; the states react with eventless',
    '(`always`) transitions. Each rule is written once, on the state that encloses every state it applies to: a fault',
    '(`operative` → `faulted`), disabling (`operative` → `unavailable`), plugging in and unplugging (`operative.available`',
    '↔ `operative.session`), a tag that authorizes or starts a transaction (`operative.available`, `operative.session`), a',
    'recoverable fault (`operative.session.transaction` → its `suspended`), a tag no state takes (refused at the root).',
    '',
    'Priority: XState takes, in each step, the first enabled transition of the innermost active state that has one, and',
    "looks at the enclosing states only when none is enabled; a state's own transitions count in the order listed below.",
    'The guards of the flow (marked *flow* below) hold only while there is no fault and charging is enabled, so while a',
    'fault or disabling is present the fault and disabling rules are the only ones that can be taken: before anything',
    'else, in the step that finds them. No transition can close the contactor or start a transaction in the step that',
    'finds a fault (`test/machines/charge-cycle-priority.test.ts` checks every microstep of random event sequences).',
    '`suspended` holds its transaction with a rule without target while the fault lasts: being innermost, it is reached',
    'before the enclosing fault rule (a step whose transition changes nothing ends there).',
    '',
    '## States',
    '',
    'Outputs follow the state tags: `pwm` (PWM announces the allowed current), `contactor` (relay closed), `locked`',
    '(cable locked; also whenever the contactor is closed). connectionState and type2State follow from the CP level:',
    '`no_vehicle_connected` on A, `vehicle_connector_error` on E/F, `vehicle_charging_type2` while the contactor is',
    'closed, `vehicle_connected_type2` otherwise; type2State is the CP level (F is reported as `e` plus a message).',
    '',
    '| state | systemState | authState | ocppState | outputs | HMI (LEDs) |',
    '|---|---|---|---|---|---|',
  ];
  for (const node of atomicStates(chargeCycleMachine)) {
    const meta = node.meta as StateMeta | undefined;
    if (!meta) continue;
    const contactor = node.tags.includes('contactor');
    const outputs = [node.tags.includes('pwm') ? 'PWM' : 'no PWM', contactor ? 'contactor closed' : 'contactor open'];
    if (node.tags.includes('locked') || contactor) outputs.push('locked');
    const hmi = hmiState(meta, false);
    const led = HMI_PATTERNS[hmi];
    lines.push(
      `| \`${statePath(node)}\` | ${meta.systemState} | ${meta.authState} | ${meta.ocppState} | ${outputs.join(', ')} | ${hmi}: ${led.color} ${led.mode} |`,
    );
  }
  const reading = HMI_PATTERNS['Reading card'];
  lines.push(
    '',
    `While a card or phone is read, the HMI shows \`Reading card\` (${reading.color} ${reading.mode}) over any state.`,
    '',
    '## Guards',
    '',
    '| guard | true when |',
    '|---|---|',
    ...Object.entries(GUARD_DESCRIPTIONS).map(
      ([g, d]) => `| ${g} | ${(FLOW_GUARDS as readonly string[]).includes(g) ? `*flow:* ${d}, no fault and charging enabled` : d} |`,
    ),
    '',
    '## Charge-cycle transitions',
    '',
    'Delays: `authTimeout` = the authorization timeout setting (30 s by default); `powerCut` = 6 s (IEC 61851-1: power',
    'is cut when the EV stays in C after the PWM went off). A transaction stops with the OCPP reason of the event that',
    'ended it: `EVDisconnected` (CP A), `Local` (tag), `Other` (fault, disabled); `Reboot` on a graceful shutdown and',
    '`PowerLoss` when completed at start from its last checkpoint.',
    '',
    ...transitionsSection(chargeCycleMachine),
    '',
    '## Pairing transitions',
    '',
    'ENABLE carries whether the charge point is idle (`idle`, no authorization waiting); `pairingDuration` = 60 s.',
    '',
    ...transitionsSection(pairingMachine),
    '',
  );
  return lines.join('\n');
}
