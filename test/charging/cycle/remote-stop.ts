/**
 * Charge-cycle scenarios: stopped by the central system (OCPP RemoteStopTransaction). Run by test/charging/cycle.test.ts (in one process, so
 * that it can check that together the scenarios took every transition).
 */
import { describe, expect, it } from 'vitest';
import { KNOWN } from '../scenario.js';
import { startOcppCharger, until } from '../../ocpp/support.js';
import { brief, chargers } from './chargers.js';

describe('stopped by the central system (OCPP RemoteStopTransaction)', () => {
  it('before the EV asks for energy, while charging, and while pausing: finished, or stopping under load', async () => {
    const c = chargers.keep(await startOcppCharger());
    try {
      await c.online();
      const stop = async (n: number) => {
        expect(await c.csms.call('RemoteStopTransaction', { transactionId: n })).toEqual({ status: 'Accepted' });
        await until(c, () => c.csms.calls('StopTransaction').length === n, 'StopTransaction');
      };
      const start = async (n: number) => {
        await c.tag(KNOWN);
        await until(c, async () => (await c.state()).transaction?.backendTransactionId === String(n), 'the backend id');
      };
      await c.act('plug');
      await start(1);
      expect(brief(await c.state())).toEqual(['connected', 'suspendedev', 'authorized_for_charging']);
      await stop(1);
      expect(brief(await c.state())).toEqual(['finished', 'finishing', 'not_authorized_for_charging']);
      expect((await c.view()).plant).toMatchObject({ cableLocked: false, pwmCurrentA: null });
      await start(2);
      await c.act('charge');
      await stop(2);
      expect(brief(await c.state())).toEqual(['finished', 'finishing', 'not_authorized_for_charging']);
      expect((await c.view()).plant).toMatchObject({ contactorClosed: true, pwmCurrentA: null }); // until C→B or 6 s
      await c.act('pause');
      expect((await c.view()).plant.contactorClosed).toBe(false);
      await c.act('charge');
      await start(3);
      await c.sim('load-limit', { amps: 0 });
      await c.step(0);
      expect((await c.state()).ocppState).toBe('suspendedevse');
      await stop(3);
      expect(c.csms.calls('StopTransaction').map((p) => p.reason)).toEqual(['Remote', 'Remote', 'Remote']);
    } finally {
      await c.csms.close();
    }
  });
});
