import { describe, expect, test } from 'vitest';
import { KNOWN, OTHER } from '../charging/scenario.js';
import { at, refusedTags, reservationCharger } from './reservation-support.js';
import { until, useOcppChargers, type OcppCharger } from './support.js';

/**
 * H Reservation of the 2.0.1 charging station (ocpp201/reservation.ts over the model 1.6 uses, reservation.ts)
 * against the development CSMS in 2.0.1 strict mode, every frame validated again by typed-ocpp's 2.0.1 schemas.
 * Scenarios after the OCA test cases of block H; expiry on the test's manual clock.
 */

const { charger } = useOcppChargers();

const token = (idToken: string) => ({ idToken, type: 'ISO14443' });
const station = () => reservationCharger(charger, '2.0.1');

const statuses = (c: OcppCharger) => c.csms.calls('StatusNotification').map((p) => p.connectorStatus as string);
const reserve = (c: OcppCharger, more: Record<string, unknown> = {}) =>
  c.csms.call('ReserveNow', { id: 7, expiryDateTime: at(600), idToken: token(KNOWN), ...more });

describe('H reservation (2.0.1)', () => {
  test('TC_H_01/07_CS ReserveNow then use by the same idToken: Reserved, TransactionEvent Started carries the reservationId', async () => {
    const c = await station();
    expect(await reserve(c, { evseId: 1, connectorType: 'cType2' })).toEqual({ status: 'Accepted' });
    await until(c, () => statuses(c).at(-1) === 'Reserved', 'StatusNotification Reserved');
    expect(c.csms.calls('StatusNotification').at(-1)).toMatchObject({ evseId: 1, connectorId: 1, connectorStatus: 'Reserved' });
    expect((await c.state()).ocppState).toBe('reserved');
    expect((await c.state()).systemState).toBe('idle');

    await c.act('plug');
    await c.tag(KNOWN);
    const started = await until(c, () => c.csms.calls('TransactionEvent').find((e) => e.eventType === 'Started'), 'Started');
    expect(started).toMatchObject({ idToken: token(KNOWN), reservationId: 7, evse: { id: 1, connectorId: 1 } });
    // The reservation is used: cancelling it is refused, and nothing expires later.
    expect(await c.csms.call('CancelReservation', { reservationId: 7 })).toEqual({ status: 'Rejected' });
    await c.tag(KNOWN);
    await until(c, () => c.csms.calls('TransactionEvent').some((e) => e.eventType === 'Ended'), 'Ended');
    await c.act('unplug');
    await until(c, () => statuses(c).at(-1) === 'Available', 'Available after the charge');
    await c.step(600_000);
    expect(c.csms.calls('ReservationStatusUpdate')).toEqual([]);
    expect((await c.state()).ocppState).toBe('available');
  });

  test('TC_H_xx_CS another idToken refused while reserved: a tag read and RequestStartTransaction for it', async () => {
    const c = await station();
    expect(await reserve(c)).toEqual({ status: 'Accepted' }); // evseId absent: any EVSE, here the one
    await c.tag(OTHER); // known to the controller's whitelist, but not the reservation's token
    expect((await c.state()).authState).not.toBe('authorized_for_charging');
    expect(await refusedTags(c)).toEqual([`${OTHER}:reserved`]);
    expect(await c.csms.call('RequestStartTransaction', { idToken: token(OTHER), remoteStartId: 1 })).toEqual({ status: 'Rejected' });
    expect((await c.state()).ocppState).toBe('reserved');
    // The reservation's own token may start remotely; its Started carries the reservation.
    expect(await c.csms.call('RequestStartTransaction', { idToken: token(KNOWN), remoteStartId: 2 })).toEqual({ status: 'Accepted' });
    await c.act('plug');
    const started = await until(c, () => c.csms.calls('TransactionEvent').find((e) => e.eventType === 'Started'), 'Started');
    expect(started).toMatchObject({ triggerReason: 'RemoteStart', reservationId: 7, transactionInfo: { remoteStartId: 2 } });
  });

  test('TC_H_xx_CS a token of the reservation groupIdToken may use it (the CSMS Authorize answer names the group)', async () => {
    const c = await station();
    c.csms.answer('Authorize', ({ idToken }) => ({
      idTokenInfo: { status: 'Accepted', ...(idToken.idToken === 'A1B2C3D4' ? { groupIdToken: token('GROUP1') } : {}) },
    }));
    expect(await reserve(c, { idToken: token('OWNER01'), groupIdToken: token('GROUP1') })).toEqual({ status: 'Accepted' });
    await c.act('plug');
    await c.tag('D4C3B2A1');
    expect((await c.state()).authState).not.toBe('authorized_for_charging');
    await c.tag('A1B2C3D4');
    const started = await until(c, () => c.csms.calls('TransactionEvent').find((e) => e.eventType === 'Started'), 'Started');
    expect(started).toMatchObject({ idToken: token('A1B2C3D4'), reservationId: 7 });
  });

  test('TC_H_xx_CS reservation expiry: ReservationStatusUpdate Expired, status Available, other tokens accepted again', async () => {
    const c = await station();
    expect(await reserve(c, { expiryDateTime: at(120) })).toEqual({ status: 'Accepted' });
    await until(c, () => statuses(c).at(-1) === 'Reserved', 'Reserved');
    await c.step(110_000);
    expect((await c.state()).ocppState).toBe('reserved');
    expect(c.csms.calls('ReservationStatusUpdate')).toEqual([]);
    await c.step(10_000);
    await until(c, () => c.csms.calls('ReservationStatusUpdate').length === 1, 'ReservationStatusUpdate');
    expect(c.csms.calls('ReservationStatusUpdate')).toEqual([{ reservationId: 7, reservationUpdateStatus: 'Expired' }]);
    await until(c, () => statuses(c).at(-1) === 'Available', 'Available at expiry');
    expect((await c.state()).ocppState).toBe('available');
    await c.tag(OTHER);
    expect((await c.state()).authState).toBe('authorized_for_charging');
  });

  test('TC_H_19/20_CS CancelReservation: an unknown id Rejected, the reservation id Accepted and the EVSE Available', async () => {
    const c = await station();
    await reserve(c);
    expect(await c.csms.call('CancelReservation', { reservationId: 99 })).toEqual({ status: 'Rejected' });
    expect((await c.state()).ocppState).toBe('reserved');
    expect(await c.csms.call('CancelReservation', { reservationId: 7 })).toEqual({ status: 'Accepted' });
    await until(c, () => statuses(c).at(-1) === 'Available', 'Available after the cancel');
    expect((await c.state()).ocppState).toBe('available');
    expect(c.csms.calls('ReservationStatusUpdate')).toEqual([]);
  });

  test('TC_H_xx_CS refusals: another EVSE or connector type, a past expiry, another reservation, an occupied EVSE', async () => {
    const c = await station();
    expect(await reserve(c, { evseId: 2 })).toEqual({ status: 'Rejected' });
    expect(await reserve(c, { connectorType: 'cCCS2' })).toEqual({ status: 'Rejected' });
    expect(await reserve(c, { expiryDateTime: at(-1) })).toEqual({ status: 'Rejected' });
    expect(await reserve(c)).toEqual({ status: 'Accepted' });
    expect(await reserve(c, { id: 8 })).toEqual({ status: 'Occupied' });
    expect(await c.csms.call('CancelReservation', { reservationId: 7 })).toEqual({ status: 'Accepted' });
    await c.act('plug');
    expect(await reserve(c)).toEqual({ status: 'Occupied' });
    await c.act('unplug');
    expect(await c.csms.call('ChangeAvailability', { operationalStatus: 'Inoperative' })).toEqual({ status: 'Accepted' });
    expect(await reserve(c)).toEqual({ status: 'Unavailable' });
  });
});
