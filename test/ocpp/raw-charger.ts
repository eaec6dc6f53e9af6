import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import type { SettingValue } from '../../services/settings/catalogue.js';
import { startCharger, type Charger } from '../charging/scenario.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { startRawCentralSystem, type RawCentralSystem } from './raw-central-system.js';
import { ocppSettings, until, writeSettings } from './support.js';

export interface RawCharger extends Charger {
  cs: RawCentralSystem;
  clock: ManualClock;
  dataDir: string;
  online(): Promise<void>;
  link(): unknown;
}

/**
 * For a test file: `charger()` starts a controller (simulated hardware, the manual clock) connected to the
 * independent central system of raw-central-system.ts; after each test every frame the charge point sent must have
 * passed its checks, and everything started is stopped.
 */
export function useRawChargers() {
  const started: RawCharger[] = [];
  afterEach(async () => {
    for (const c of started.splice(0)) {
      expect(c.cs.invalid).toEqual([]);
      await c.h.stop();
      await c.cs.close();
    }
  });
  return {
    async charger(opts: { settings?: Record<string, SettingValue>; cs?: RawCentralSystem; clock?: ManualClock; dataDir?: string } = {}): Promise<RawCharger> {
      const clock = opts.clock ?? new ManualClock(TEST_EPOCH);
      const cs = opts.cs ?? (await startRawCentralSystem({ now: () => clock.now() }));
      const fresh = !opts.dataDir;
      const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'cc-ocpp-raw-')));
      await writeSettings(dataDir, ocppSettings(cs, opts.settings));
      const c = await startCharger({ dataDir, whitelist: fresh, harness: { clock } });
      const charger: RawCharger = {
        ...c,
        cs,
        clock,
        dataDir,
        link: () => c.h.controller.backend.state(),
        async online() {
          await until(c, () => c.h.controller.backend.online(), 'the backend link to be accepted');
          await c.step(0);
        },
      };
      started.push(charger);
      return charger;
    },
    /** Stops a charger (a restart on its data directory follows); its central system stays. */
    async stop(c: RawCharger): Promise<void> {
      started.splice(started.indexOf(c), 1);
      await c.h.stop({ keepData: true });
    },
  };
}
