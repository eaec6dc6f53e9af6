import { describe, expect, test } from 'vitest';
import { KNOWN, OTHER } from '../charging/scenario.js';
import { at, refusedTags, reservationCharger } from './reservation-support.js';
import { startOcppCharger, until, useOcppChargers, type OcppCharger } from './support.js';

/**
 * The OCPP 1.6 Reservation profile (services/ocpp/reservation.ts) against the strict central system (ocpp-rpc's
 * OCA schemas, every frame also checked by typed-ocpp). Scenarios after the OCA test tool's reservation cases: reserve
 * and use with the reserved tag, another tag refused, expiry, cancel, the refusals by connector state, a parent
 * idTag, and a reservation kept across a restart.
 */

const { charger } = useOcppChargers();

const statuses = (c: OcppCharger) =>
  c.csms
    .calls('StatusNotification')
    .filter((p) => p.connectorId === 1)
    .map((p) => p.status as string);

const reserve = (c: OcppCharger, more: Record<string, unknown> = {}) =>
  c.csms.call('ReserveNow', { connectorId: 1, expiryDate: at(600), idTag: KNOWN, reservationId: 7, ...more });

describe('Reservation profile', () => {
  test('reserved for a tag: shown Reserved, other tags and remote starts refused, the tag starts with the reservation id', async () => {
    const c = await reservationCharger(charger, '1.6');
    expect(await reserve(c)).toEqual({ status: 'Accepted' });
    await until(c, () => statuses(c).at(-1) === 'Reserved', 'StatusNotification Reserved');
    expect((await c.state()).ocppState).toBe('reserved');
    expect((await c.state()).systemState).toBe('idle'); // the spec's system state is unchanged by a reservation

    await c.tag(OTHER); // known to the controller's whitelist, but not the reservation's tag
    expect((await c.state()).authState).not.toBe('authorized_for_charging');
    expect(await refusedTags(c)).toEqual([`${OTHER}:reserved`]);
    expect(await c.csms.call('RemoteStartTransaction', { idTag: 'REMOTE-1' })).toEqual({ status: 'Rejected' });
    // A charge without a tag (the MQTT Charge command) is refused with the reason.
    expect(() => c.h.controller.chargeControl.start()).toThrow(/reserved/);

    await c.act('plug');
    expect((await c.state()).ocppState).toBe('preparing');
    await c.tag(KNOWN);
    const start = await until(c, () => c.csms.calls('StartTransaction')[0], 'StartTransaction');
    expect(start).toMatchObject({ idTag: KNOWN, reservationId: 7 });
    // The reservation is used: a second one for another tag is possible only once the connector is free again.
    expect(await reserve(c, { reservationId: 8, idTag: OTHER })).toEqual({ status: 'Occupied' });
    await c.tag(KNOWN);
    await until(c, () => c.csms.calls('StopTransaction')[0], 'StopTransaction');
    await c.act('unplug');
    await until(c, () => statuses(c).at(-1) === 'Available', 'Available after the charge');
    expect((await c.state()).ocppState).toBe('available');
    await c.tag(OTHER);
    expect((await c.state()).authState).toBe('authorized_for_charging');
  });

  test('expiry: the connector is free again at expiryDate, without a vehicle having come', async () => {
    const c = await reservationCharger(charger, '1.6');
    expect(await reserve(c, { expiryDate: at(120) })).toEqual({ status: 'Accepted' });
    await until(c, () => statuses(c).at(-1) === 'Reserved', 'Reserved');
    await c.step(110_000);
    expect((await c.state()).ocppState).toBe('reserved');
    await c.step(10_000);
    await until(c, () => statuses(c).at(-1) === 'Available', 'Available at expiry');
    await c.tag(OTHER);
    expect((await c.state()).authState).toBe('authorized_for_charging');
    expect(await c.csms.call('CancelReservation', { reservationId: 7 })).toEqual({ status: 'Rejected' });
  });

  test('CancelReservation: an unknown id is Rejected, the reservation id frees the connector', async () => {
    const c = await reservationCharger(charger, '1.6');
    await reserve(c);
    expect(await c.csms.call('CancelReservation', { reservationId: 99 })).toEqual({ status: 'Rejected' });
    expect((await c.state()).ocppState).toBe('reserved');
    expect(await c.csms.call('CancelReservation', { reservationId: 7 })).toEqual({ status: 'Accepted' });
    await until(c, () => statuses(c).at(-1) === 'Available', 'Available after the cancel');
    expect((await c.state()).ocppState).toBe('available');
  });

  test('refusals: connector 0, a past expiry, another reservation, a vehicle, a fault, unavailable, free charging', async () => {
    const c = await reservationCharger(charger, '1.6');
    expect(await reserve(c, { connectorId: 0 })).toEqual({ status: 'Rejected' });
    expect(await reserve(c, { expiryDate: at(-1) })).toEqual({ status: 'Rejected' });
    expect(await reserve(c)).toEqual({ status: 'Accepted' });
    expect(await reserve(c, { reservationId: 8 })).toEqual({ status: 'Occupied' });
    // The same reservation id again replaces it (OCPP 1.6 5.13): now for OTHER.
    expect(await reserve(c, { idTag: OTHER })).toEqual({ status: 'Accepted' });
    await c.tag(KNOWN);
    expect(await refusedTags(c)).toEqual([`${KNOWN}:reserved`]);
    expect(await c.csms.call('CancelReservation', { reservationId: 7 })).toEqual({ status: 'Accepted' });

    await c.act('plug');
    expect(await reserve(c)).toEqual({ status: 'Occupied' });
    await c.act('unplug');
    await c.tag(KNOWN); // authorized, waiting for a vehicle
    expect(await reserve(c)).toEqual({ status: 'Occupied' });
    await c.tag(KNOWN); // withdrawn
    expect(await c.csms.call('ChangeAvailability', { connectorId: 1, type: 'Inoperative' })).toEqual({ status: 'Accepted' });
    expect(await reserve(c)).toEqual({ status: 'Unavailable' });
    await c.csms.call('ChangeAvailability', { connectorId: 1, type: 'Operative' });
    await c.sim('temperature', { celsius: 85 });
    await c.step(1000);
    expect((await c.state()).ocppState).toBe('faulted');
    expect(await reserve(c)).toEqual({ status: 'Faulted' });
    await c.sim('temperature', { celsius: 25 });
    await c.step(1000);
    expect(await c.csms.call('ReserveNow', { connectorId: 1, expiryDate: at(600), idTag: KNOWN, reservationId: 9 })).toEqual({ status: 'Accepted' });
    await c.csms.call('CancelReservation', { reservationId: 9 });
    await c.settings({ freeCharging: true } as never);
    expect(await reserve(c)).toEqual({ status: 'Rejected' });
  });

  test('a parent idTag: any tag the central system gives that parent may use the reservation', async () => {
    const c = await charger();
    c.csms.answer('Authorize', (p: any) => ({ idTagInfo: { status: 'Accepted', ...(p.idTag === 'F1EE7002' ? { parentIdTag: 'FLEET' } : {}) } }));
    await c.online();
    expect(await reserve(c, { idTag: 'F1EE7001', parentIdTag: 'FLEET' })).toEqual({ status: 'Accepted' });
    await c.tag(OTHER); // no parent
    expect((await c.state()).authState).not.toBe('authorized_for_charging');
    await c.act('plug');
    await c.tag('F1EE7002');
    const start = await until(c, () => c.csms.calls('StartTransaction')[0], 'StartTransaction');
    expect(start).toMatchObject({ idTag: 'F1EE7002', reservationId: 7 });
  });

  test('a restart keeps the reservation (it is in the database)', async () => {
    const first = await startOcppCharger();
    await first.online();
    await reserve(first);
    const dataDir = first.h.dataDir;
    await first.h.stop({ keepData: true });
    const again = await charger({ csms: first.csms, clock: first.clock, dataDir });
    await again.online();
    expect((await again.state()).ocppState).toBe('reserved');
    await until(again, () => statuses(again).at(-1) === 'Reserved', 'Reserved after the restart');
    await again.tag(OTHER);
    expect((await again.state()).authState).not.toBe('authorized_for_charging');
  });
});
