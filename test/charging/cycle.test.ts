import { expect, it } from 'vitest';
import { chargeCycleMachine } from '../../machines/charge-cycle.js';
import { transitionTable } from '../../machines/transitions.js';
import { taken } from './scenario.js';
// The scenarios, by concept, in the order they run (each module declares its tests when it is imported).
import './cycle/whole-charge.js';
import './cycle/authorization.js';
import './cycle/settings.js';
import './cycle/faults.js';
import './cycle/persistence.js';
import './cycle/remote-stop.js';
import './cycle/user-start.js';

/**
 * Scenario tests of the charge cycle on the simulated hardware, through the API and the simulator, with the manual
 * clock (in test/charging/cycle/). The last test checks that together they took every transition of
 * docs/charge-cycle.md: they run in this one file, so that one process records every transition they take.
 */

it('together the scenarios took every transition of docs/charge-cycle.md', () => {
  const table = transitionTable(chargeCycleMachine).map((r) => r.key);
  const done = taken.get('chargeCycle') ?? new Set();
  const missing = table.filter((k) => !done.has(k));
  expect(missing, 'transitions no scenario took').toEqual([]);
});
