import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';

/**
 * Every module under mutation testing loads. A module that throws while it is imported (an XState machine with an
 * invalid configuration: an empty `initial`, a target that does not exist) fails every test file that imports it,
 * but at collection, where Stryker's vitest runner sees no failed test and counts the mutant as survived
 * (stryker-js issue 6150). Imported here inside a test, the same error is a failed test.
 */
const MODULES = {
  'machines/backend-link.ts': () => import('../../machines/backend-link.js'),
  'machines/backoff.ts': () => import('../../machines/backoff.js'),
  'machines/charge-cycle.ts': () => import('../../machines/charge-cycle.js'),
  'machines/main-thread.ts': () => import('../../machines/main-thread.js'),
  'machines/core.ts': () => import('../../machines/core.js'),
  'machines/mqtt.ts': () => import('../../machines/mqtt.js'),
  'machines/nfc-link.ts': () => import('../../machines/nfc-link.js'),
  'machines/pairing.ts': () => import('../../machines/pairing.js'),
  'machines/phase-switch.ts': () => import('../../machines/phase-switch.js'),
  'machines/secrets.ts': () => import('../../machines/secrets.js'),
  'machines/session.ts': () => import('../../machines/session.js'),
  'machines/transitions.ts': () => import('../../machines/transitions.js'),
  'machines/type4-tag.ts': () => import('../../machines/type4-tag.js'),
  'services/core/charge-point.ts': () => import('../../services/core/charge-point.js'),
  'services/core/supervision.ts': () => import('../../services/core/supervision.js'),
  'services/core/outputs.ts': () => import('../../services/core/outputs.js'),
  'services/core/metering.ts': () => import('../../services/core/metering.js'),
  'services/core/state-view.ts': () => import('../../services/core/state-view.js'),
  'services/core/phase-switching.ts': () => import('../../services/core/phase-switching.js'),
  'services/core/safety.ts': () => import('../../services/core/safety.js'),
  'services/core/liveness.ts': () => import('../../services/core/liveness.js'),
  'drivers/pn532/frame.ts': () => import('../../drivers/pn532/frame.js'),
  'drivers/nfc/ndef.ts': () => import('../../drivers/nfc/ndef.js'),
};

test.each(Object.entries(MODULES))('%s loads', async (_file, load) => {
  await expect(load()).resolves.toBeTypeOf('object');
});

test("each actor's chart is named after its machine: docs/charts/<file>.svg and the inspector's list", async () => {
  const { chartedMachines } = await import('../../services/machine-charts.js');
  const charts = chartedMachines().map((c) => [c.systemId, c.id, c.file]);
  expect(charts).toEqual(
    expect.arrayContaining([
      ['controller', 'controller', 'controller'],
      ['session', 'session', 'session'],
      ['pairing', 'pairing', 'pairing'],
      ['nfcLink', 'nfcLink', 'nfc-link'],
      ['mqtt', 'mqtt', 'mqtt'],
      ['backendLink', 'backendLink', 'backend-link'],
      ['core', 'chargePointCore', 'charge-point-core'],
      ['solar', 'solar', 'solar'],
      ['siteMembership', 'siteMembership', 'site-membership'],
      ['chargeCycle', 'chargeCycle', 'charge-cycle'],
      ['phaseSwitch', 'phaseSwitch', 'phase-switch'],
    ]),
  );
  for (const [, , file] of charts) expect(existsSync(join(import.meta.dirname, '..', '..', 'docs', 'charts', `${file}.svg`)), file).toBe(true);
});
