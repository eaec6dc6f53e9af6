import { expect, it } from 'vitest';
import type { ChargePointHardware } from '../../drivers/index.js';
import { KNOWN, useChargers } from '../charging/scenario.js';

const chargers = useChargers();

// A charge cycle whose effect throws (here the buzzer's driver, at a tag while charging) has failed: nothing decides
// any more. The core says so, and the main thread loses it as it would a dead core: the process ends (code 70, for
// its supervisor to restart it); the harness records why instead of exiting.
it('a failed charge cycle loses the core: the main thread is told why, once', async () => {
  let broken = false;
  const c = await chargers.start({
    chargePoint: (hw): ChargePointHardware => ({
      ...hw,
      buzzer: {
        ...hw.buzzer,
        beep: (count, ms) => {
          if (broken) throw new Error('buzzer GPIO write failed');
          hw.buzzer.beep(count, ms);
        },
      },
    }),
  });
  await c.act('plug');
  await c.tag(KNOWN);
  await c.act('charge');
  expect(c.h.coreLost).toEqual([]);
  broken = true;
  await c.tag(KNOWN);
  await c.step(1000);
  expect(c.h.coreLost).toEqual([expect.stringMatching(/^it failed: .*buzzer GPIO write failed/)]);
});
