/**
 * One wall of the soak (bin/dev/soak.ts): a controller as `npm start` runs it, on its own data directory and API
 * port, with its own charge point identity at the soak's central system and its own MQTT base topic at its broker,
 * driven by its own session loop, phone and MQTT observer. The walls run side by side; the charge cycle keeps its real
 * deadlines in each (no scaled clock), so walls, not a faster clock, give the soak its sessions per hour.
 */
import { join } from 'node:path';
import { seededRandom } from '../../drivers/seeded-random.js';
import { integrityOfCopy, SoakController, type SimView } from './soak-controller.js';
import type { DrivenSession } from './soak-reconcile.js';
import { soakPhone, type SoakPhone } from './soak-phone.js';
import { afterRemoteStop } from './soak-stop.js';
import { observeMqtt, REFUSED_PREFIX, type CsmsPoint, type MqttObserver, type SoakBroker, type SoakCsms } from './soak-world.js';

const KNOWN = '04A1B2C3';
const REMOTE = '04C0FFEE';
/** How often a wait on the simulator's view looks again (each look is an HTTP request to the controller). */
const POLL_MS = 100;
const WAIT_MS = 8_000;
/** A session's charge (ms, drawn between): long enough for whole Wh at 6–32 A, short for sessions per hour. */
const CHARGE_MS: readonly [number, number] = [100, 400];

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where a session's wall time goes: the sum per step over the wall's sessions (ms). */
export type Steps = Record<'prepare' | 'plug' | 'refused tag' | 'start' | 'charge' | 'contactor open' | 'stop' | 'unplug', number>;

export class SoakWall {
  readonly c: SoakController;
  readonly point: CsmsPoint;
  readonly observer: MqttObserver;
  readonly phone: SoakPhone;
  readonly sessions: DrivenSession[] = [];
  readonly integrity: string[] = [];
  readonly steps: Steps = { prepare: 0, plug: 0, 'refused tag': 0, start: 0, charge: 0, 'contactor open': 0, stop: 0, unplug: 0 };
  readonly random: () => number;
  readonly baseTopic: string;
  errors = 0;
  /** Controller ends the soak did not cause (the core's liveness watch, a crash): each restarted. */
  unplanned = 0;
  chargingMs = 0;
  /** Time of the session loop. */
  sessionsMs = 0;
  readonly #settings = new Map<string, number>();
  /** Another wall failed the soak: this one drives no more sessions and starts no more processes. */
  #aborted = false;

  constructor(
    readonly index: number,
    readonly dataDir: string,
    readonly csms: SoakCsms,
    readonly broker: SoakBroker,
    seed: number,
  ) {
    // GPIO_PHASE_SWITCH: the simulated phase contactor, for one- and three-phase sessions.
    this.c = new SoakController(dataDir, { GPIO_PHASE_SWITCH: '16' });
    this.point = csms.point(`CP-SOAK-${index}`);
    this.baseTopic = `soak/${index}`;
    this.observer = observeMqtt(broker.url, this.baseTopic);
    this.random = seededRandom(seed * 1000 + index);
    this.phone = soakPhone(this.c, this.random);
  }

  #between = (a: number, b: number) => a + this.random() * (b - a);
  #pick = (p: number) => this.random() < p;

  /** The database, an installer, the links, the whitelist; then started so every setting holds from start. */
  async setUp(): Promise<void> {
    const c = this.c;
    await this.#start(false);
    await c.stop();
    c.addInstaller();
    await this.#start(false);
    const patch = await c.api('PATCH', '/v1/settings', {
      params: [
        { key: 'OcppEnabled', value: 1 },
        { key: 'OcppUrl', value: this.csms.csms.url },
        { key: 'OcppChargeBoxId', value: this.point.identity },
        { key: 'MqttEnabled', value: 1 },
        { key: 'MqttUrl', value: this.broker.url },
        { key: 'MqttBaseTopic', value: this.baseTopic },
        { key: 'RFIDMode', value: 1 },
        { key: 'GridPowerSource', value: 1 },
      ],
    });
    if (patch.status !== 200) throw new Error(`settings: ${patch.status} ${patch.text}`);
    const added = await c.api('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: [{ id: KNOWN }, { id: REMOTE }] });
    if (added.status !== 200) throw new Error(`whitelist: ${added.status} ${added.text}`);
    await c.stop();
    await this.#restart();
    this.integrity.length = 0;
  }

  async #afterStart(): Promise<void> {
    if (!process.env.SOAK_NO_DAY) await this.c.sim('/day', { profile: 'sunny', startHour: 12, speed: 1 });
  }

  /** After a kill (or an end the soak did not cause): the database checked, the controller started again. */
  async #restart(): Promise<void> {
    this.observer.forget();
    this.phone.forget();
    this.#settings.clear();
    this.integrity.push(await integrityOfCopy(this.dataDir));
    await this.#start(true);
  }

  /** Started, up to 20 attempts (on a busy machine a start can miss the 10 s to listen, as under systemd it would). */
  async #start(day: boolean): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (this.#aborted) throw new Error(`wall ${this.index}: aborted`);
      try {
        await this.c.start();
        if (day) await this.#afterStart();
        return;
      } catch (err) {
        if (attempt === 20) throw err;
        this.unplanned++;
        process.stderr.write(`wall ${this.index} restart ${attempt}: ${err instanceof Error ? err.message : String(err)}\n`);
        await this.c.stop();
      }
    }
  }

  async #setting(key: string, value: number): Promise<void> {
    if (this.#settings.get(key) === value) return;
    const res = await this.c.api('PATCH', '/v1/settings', { params: [{ key, value }] });
    if (res.status !== 200) throw new Error(`${key}: ${res.status} ${res.text}`);
    this.#settings.set(key, value);
  }

  /** The running transaction as the API shows it (the simulator's view names no tag): its id and tag. */
  async #apiTransaction(): Promise<{ transactionId?: string; tagId?: string } | undefined> {
    const res = await this.c.api('GET', '/v1/system_state');
    return (res.json as { transaction?: { transactionId?: string; tagId?: string } } | undefined)?.transaction;
  }

  async #described(): Promise<string> {
    const t = await this.#apiTransaction();
    return t ? `${t.transactionId} (tag ${t.tagId ?? 'none'})` : 'that ended before the API was read';
  }

  async until(what: string, done: (v: SimView) => boolean, ms = WAIT_MS): Promise<SimView> {
    const end = performance.now() + ms;
    for (;;) {
      const view = await this.c.sim('');
      if (done(view)) return view;
      if (performance.now() > end) throw new Error(`wall ${this.index}: not within ${ms} ms: ${what} (${JSON.stringify(view.chargePoint)})`);
      await sleep(POLL_MS);
    }
  }

  /** `count` sessions one after the other; SIGKILLed while charging in the sessions numbered in `killAt`. */
  async run(count: number, killAt: Set<number>, progress: () => void): Promise<void> {
    const from = performance.now();
    for (let index = 0; index < count && !this.#aborted; index++) {
      await this.#session(index, killAt.has(index));
      progress();
    }
    this.sessionsMs = performance.now() - from;
  }

  async #session(index: number, kill: boolean): Promise<void> {
    const { c, phone, point } = this;
    const session: DrivenSession = { index, transactionId: null, deliveredWh: 0, killed: false };
    let stepFrom = performance.now();
    const step = (name: keyof Steps) => {
      const now = performance.now();
      this.steps[name] += now - stepFrom;
      stepFrom = now;
    };
    try {
      await phone.visitIfDue();
      await this.#setting('PhaseSwitchMode', this.#pick(0.3) ? 1 : 2);
      await this.#setting('ChargingMode', this.#pick(0.1) ? 1 : 0);
      await c.sim('/ev', { maxCurrentA: Math.round(this.#between(6, 32)) });
      step('prepare');
      await c.sim('/plug');
      const plugged = await this.until('waiting for a tag', (v) => v.plant.vehicle === 'connected' && v.chargePoint.systemState !== 'idle');
      // An authorization held from before (a tag read after the last session ended) starts a transaction at plug-in.
      if (plugged.chargePoint.transaction) throw new Error(`transaction ${await this.#described()} started at plug-in, before any tag`);
      step('plug');
      if (this.#pick(0.15) && !phone.inMinute()) {
        await c.sim('/tag', { id: `${REFUSED_PREFIX}${String(index).padStart(5, '0')}` });
        await sleep(150);
        const v = await c.sim('');
        if (v.chargePoint.transaction) throw new Error(`an unknown tag started transaction ${await this.#described()}`);
        step('refused tag');
      }
      // Remote start when the central system is connected and the charger accepts it; a tag otherwise. In a phone's
      // minute (no card read) remote start is preferred, and on some visits a tag is presented on purpose: it must
      // start its transaction only after the minute.
      const tagInMinute = phone.checkDue();
      const remote =
        !tagInMinute &&
        (this.#pick(0.15) || phone.inMinute()) &&
        point.connected() &&
        (await point.call('RemoteStartTransaction', { connectorId: 1, idTag: REMOTE }).catch(() => undefined))?.status === 'Accepted';
      let tag = remote ? REMOTE : KNOWN;
      const minute = !remote && phone.inMinute() ? phone.minuteBounds() : undefined;
      if (!remote) await c.sim('/tag', { id: tag });
      let view = await this.until('the transaction', (v) => v.chargePoint.transaction !== undefined, minute ? minute.latest - performance.now() : WAIT_MS);
      if (minute) phone.checked(performance.now());
      // The tag that stops it is the transaction's own: a RemoteStartTransaction whose answer was lost with a dropped
      // connection may have started it for REMOTE while the soak presented KNOWN, which then stops nothing.
      tag = (await this.#apiTransaction())?.tagId ?? tag;
      step('start');
      session.transactionId = view.chargePoint.transaction!.transactionId;
      const startWh = view.plant.energyWh;
      this.sessions.push(session);
      const chargeFrom = performance.now();
      await c.sim('/charge');
      const chargeMs = this.#between(...CHARGE_MS);
      if (kill) {
        await sleep(this.#between(0, chargeMs));
        session.deliveredWh = (await c.sim('')).plant.energyWh - startWh;
        session.killed = true;
        await c.kill();
        this.chargingMs += performance.now() - chargeFrom;
        await this.#restart();
        return;
      }
      const faults: string[] = [];
      if (this.#pick(0.1)) faults.push('meter-offline');
      if (this.#pick(0.05)) faults.push('temperature-sensor-offline');
      for (const fault of faults) await c.sim('/fault', { fault });
      if (this.#pick(0.15)) {
        await sleep(chargeMs / 2);
        await c.sim('/pause');
        await sleep(this.#between(50, 300));
        await c.sim('/charge');
        await sleep(chargeMs / 2);
      } else await sleep(chargeMs);
      for (const fault of faults) await c.clearFault(fault);
      step('charge');
      // The EV stops asking: the contactor opens, the register stands still, then the transaction ends.
      await c.sim('/pause');
      view = await this.until('the contactor open', (v) => !v.plant.contactorClosed);
      step('contactor open');
      session.deliveredWh = view.plant.energyWh - startWh;
      const how = this.random();
      const backendId = point.lastTransactionId();
      if (how < 0.2 && point.connected() && backendId !== undefined) {
        const answer = await point.call('RemoteStopTransaction', { transactionId: backendId }).catch(() => undefined);
        const then = afterRemoteStop(answer?.status, phone.inMinute());
        if (then === 'tag') await c.sim('/tag', { id: tag });
        else if (then === 'unplug') await c.sim('/unplug');
      } else if (how < 0.8 && !phone.inMinute()) await c.sim('/tag', { id: tag });
      else await c.sim('/unplug');
      view = await this.until('the transaction to end', (v) => v.chargePoint.transaction === undefined);
      this.chargingMs += performance.now() - chargeFrom;
      step('stop');
      if (view.plant.vehicle !== 'unplugged') await c.sim('/unplug');
      await this.until('idle', (v) => v.chargePoint.systemState === 'idle');
      step('unplug');
    } catch (err) {
      this.errors++;
      process.stderr.write(`wall ${this.index} session ${index}: ${err instanceof Error ? err.message : String(err)}\n`);
      if (!c.alive()) {
        // The process ended itself: as a kill (its open transaction is completed at the next start).
        this.unplanned++;
        if (session.transactionId !== null && !session.killed) [session.killed, session.deliveredWh] = [true, NaN];
        await c.stop();
        await this.#restart();
      } else await c.sim('/unplug').catch(() => undefined);
      await sleep(500);
    }
  }

  abort(): void {
    this.#aborted = true;
  }

  /**
   * One charge of `chargeS` seconds with nothing else happening: what a charger in the field writes per charging
   * hour (the compressed sessions put a session's fixed cost on seconds of charging). Reconciled as the other sessions.
   */
  async chargeLong(chargeS: number): Promise<{ ms: number; written: number }> {
    const c = this.c;
    const session: DrivenSession = { index: this.sessions.length, transactionId: null, deliveredWh: 0, killed: false };
    await c.sim('/plug');
    await this.until('waiting for a tag', (v) => v.plant.vehicle === 'connected' && v.chargePoint.systemState !== 'idle');
    await c.sim('/tag', { id: KNOWN });
    // A phone's minute may still hold the reader: the tag is read at its end.
    let view = await this.until('the transaction', (v) => v.chargePoint.transaction !== undefined, 70_000);
    session.transactionId = view.chargePoint.transaction!.transactionId;
    const startWh = view.plant.energyWh;
    this.sessions.push(session);
    await c.sim('/charge');
    c.sample();
    const [from, fromWritten] = [performance.now(), c.written()];
    await sleep(chargeS * 1000);
    c.sample();
    const measured = { ms: performance.now() - from, written: c.written() - fromWritten };
    await c.sim('/pause');
    view = await this.until('the contactor open', (v) => !v.plant.contactorClosed);
    session.deliveredWh = view.plant.energyWh - startWh;
    await c.sim('/tag', { id: KNOWN });
    await this.until('the transaction to end', (v) => v.chargePoint.transaction === undefined);
    await c.sim('/unplug');
    await this.until('idle', (v) => v.chargePoint.systemState === 'idle');
    return measured;
  }

  /** The wall's data directory under the soak's root. */
  static dir(root: string, index: number): string {
    return join(root, `wall-${index}`);
  }
}
