import { describe, expect, test } from 'vitest';
import { and, assign, createActor, createMachine, not, or, setup, type InspectionEvent } from 'xstate';
import { describeAction, describeGuard, statePath, takenKey, transitionTable, triggerOf } from '../../machines/transitions.js';
import { ManualClock } from '../clock.js';

/**
 * The transition table (machines/transitions.ts) that docs/<machine>.md, the charts, the inspector and the scenario
 * coverage checks are built from, on a machine made for it with every kind of guard, action, trigger and target; and
 * the key of a transition taken at run time, which must be the key of its row in the table.
 */

function fresh() {
  return true;
}

const machine = setup({
  types: {} as { events: { type: 'GO' } | { type: 'STAY' } | { type: 'SPLIT' } | { type: 'BACK' } },
  guards: { ready: () => true, never: () => false },
  actions: { note: () => {} },
  delays: { pause: 500 },
}).createMachine({
  id: 'sample',
  initial: 'a',
  on: { BACK: { target: '.a' } },
  states: {
    a: {
      always: [
        { guard: and(['never', not('ready')]), target: 'b' },
        { guard: or(['never', { type: 'never' }]), target: 'b' },
      ],
      on: {
        GO: [
          { guard: { type: 'never', params: { why: 'object form' } }, target: 'b' },
          { guard: fresh, target: 'b', actions: ['note', { type: 'note' }, assign({}), () => {}] },
        ],
        STAY: { guard: ({ event }) => event.type === 'STAY', actions: 'note' },
      },
    },
    b: {
      after: { pause: 'c' },
      on: { SPLIT: 'split' },
    },
    c: {
      always: { guard: 'ready', target: 'split' },
    },
    split: {
      type: 'parallel',
      states: {
        left: { initial: 'l1', states: { l1: {}, l2: {} } },
        right: { initial: 'r1', states: { r1: {} } },
      },
      after: { 1000: 'a' },
      on: { GO: { target: ['.left.l2', '.right.r1'] } },
    },
  },
});

const rows = () => transitionTable(machine).map((r) => [r.source, r.trigger, r.guard, r.target, r.actions.join(' ')].join(' | '));

describe('transitionTable', () => {
  test('every transition in document order: source, trigger, guard, target, actions', () => {
    expect(rows()).toEqual([
      '(root) | BACK |  | a | ',
      'a | always | and(never, not(ready)) | b | ',
      'a | always | or(never, never) | b | ',
      'a | GO | never | b | ',
      'a | GO | fresh | b | note note xstate.assign inline',
      // An inline guard written as a property has the property's name.
      'a | STAY | guard | (stays) | note',
      'b | SPLIT |  | split | ',
      'b | after pause |  | c | ',
      'c | always | ready | split | ',
      'split | GO |  | split.left.l2, split.right.r1 | ',
      'split | after 1000 |  | a | ',
    ]);
  });

  test('keys and target lists', () => {
    const table = transitionTable(machine);
    expect(table.map((r) => r.key)).toContain('a | GO | fresh | b');
    expect(table.map((r) => r.key)).toContain('a | STAY | guard | (stays)');
    expect(table.find((r) => r.trigger === 'STAY')!.targets).toEqual([]);
    expect(table.find((r) => r.source === 'split' && r.trigger === 'GO')!.targets).toEqual(['split.left.l2', 'split.right.r1']);
  });

  test('a machine without actions on its transitions', () => {
    const bare = createMachine({ id: 'bare', initial: 'x', states: { x: { on: { GO: 'y' } }, y: {} } });
    expect(transitionTable(bare)).toEqual([{ key: 'x | GO |  | y', source: 'x', trigger: 'GO', guard: '', target: 'y', targets: ['y'], actions: [] }]);
  });
});

describe('the names', () => {
  test('guards', () => {
    expect(describeGuard(undefined)).toBe('');
    expect(describeGuard('ready')).toBe('ready');
    expect(describeGuard(fresh)).toBe('fresh');
    expect(describeGuard(() => true)).toBe('inline');
    expect(describeGuard({ type: 'ready', params: {} })).toBe('ready');
    expect(describeGuard(not(and(['a', or(['b', 'c'])])))).toBe('not(and(a, or(b, c)))');
    expect(describeGuard(null)).toBe('inline');
    expect(describeGuard({})).toBe('inline');
  });

  test('actions', () => {
    expect(describeAction('note')).toBe('note');
    expect(describeAction({ type: 'note', params: {} })).toBe('note');
    expect(describeAction(assign({}))).toBe('xstate.assign');
    expect(describeAction(() => {})).toBe('inline');
    expect(describeAction(null)).toBe('inline');
    expect(describeAction({})).toBe('inline');
  });

  test('triggers and paths', () => {
    expect(triggerOf('xstate.after.pause.sample.b')).toBe('after pause');
    expect(triggerOf('xstate.after.1000.sample.b')).toBe('after 1000');
    expect(triggerOf('GO')).toBe('GO');
    expect(triggerOf('my.xstate.after.pause.sample.b')).toBe('my.xstate.after.pause.sample.b');
    expect(triggerOf('xstate.after.pause')).toBe('xstate.after.pause');
    expect(statePath(machine.root)).toBe('(root)');
    expect(statePath(machine.root.states.split!.states.left!.states.l2!)).toBe('split.left.l2');
  });
});

test('the key of every transition taken at run time is its row in the table', () => {
  const taken: string[] = [];
  const inspect = (e: InspectionEvent) => {
    if (e.type === '@xstate.microstep')
      for (const t of (e as unknown as { _transitions: Parameters<typeof takenKey>[0][] })._transitions) taken.push(takenKey(t));
  };
  const clock = new ManualClock(0);
  const actor = createActor(machine, { clock, inspect }).start();
  actor.send({ type: 'STAY' });
  actor.send({ type: 'GO' });
  clock.increment(500);
  actor.send({ type: 'GO' });
  clock.increment(1000);
  actor.send({ type: 'BACK' });
  expect(taken).toEqual([
    'a | STAY | guard | (stays)',
    'a | GO | fresh | b',
    'b | after pause |  | c',
    'c | always | ready | split',
    'split | GO |  | split.left.l2, split.right.r1',
    'split | after 1000 |  | a',
    '(root) | BACK |  | a',
  ]);
  const keys = new Set(transitionTable(machine).map((r) => r.key));
  expect(taken.filter((k) => !keys.has(k))).toEqual([]);
});
