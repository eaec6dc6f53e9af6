/**
 * The soak's world around the controller (bin/dev/soak.ts): the development central system, recording every
 * Start/Stop it answers; an MQTT broker (aedes in this process) that can be restarted on its port; and an observer
 * on that broker noting the energy of each session that ends.
 */
import mqtt, { type MqttClient } from 'mqtt';
import { serveAedes, type AedesBroker } from './aedes-broker.js';
import { startCsms, type Csms } from './central-system.js';
import { freePort } from './bench-tools.js';
import type { CsmsStart, CsmsStop } from './soak-reconcile.js';

/** Tags the central system refuses (an Authorize for them answers Invalid). */
export const REFUSED_PREFIX = 'BAD';

/** One charge point (a wall) at the soak's central system: what it received from it, and calls to it. */
export interface CsmsPoint {
  identity: string;
  starts: CsmsStart[];
  stops: CsmsStop[];
  /** The backend id last given to a StartTransaction of this point (a remote stop names it). */
  lastTransactionId(): number | undefined;
  call(action: string, payload: Record<string, unknown>): Promise<Record<string, unknown>>;
  connected(): boolean;
  drop(): Promise<void>;
}

export interface SoakCsms {
  csms: Csms;
  /** The records of one charge point identity (its OcppChargeBoxId). */
  point(identity: string): CsmsPoint;
}

export async function startSoakCsms(): Promise<SoakCsms> {
  const csms = await startCsms();
  const records = new Map<string, { starts: CsmsStart[]; stops: CsmsStop[]; last?: number }>();
  const of = (identity: string) => {
    let r = records.get(identity);
    if (!r) records.set(identity, (r = { starts: [], stops: [] }));
    return r;
  };
  // Backend ids are unique over every charge point.
  let next = 1;
  csms.answer('Authorize', (p) => ({ idTagInfo: { status: String(p.idTag).startsWith(REFUSED_PREFIX) ? 'Invalid' : 'Accepted' } }));
  csms.answer('StartTransaction', (p, identity) => {
    const transactionId = next++;
    const r = of(identity);
    r.starts.push({ transactionId, idTag: String(p.idTag), timestamp: String(p.timestamp), meterStart: Number(p.meterStart) });
    r.last = transactionId;
    return { transactionId, idTagInfo: { status: 'Accepted' } };
  });
  csms.answer('StopTransaction', (p, identity) => {
    of(identity).stops.push({ transactionId: Number(p.transactionId), meterStop: Number(p.meterStop), reason: String(p.reason) });
    return { idTagInfo: { status: 'Accepted' } };
  });
  // The frames are not needed and would grow with the run.
  const frames = csms.frames;
  const trim = setInterval(() => frames.splice(0, frames.length), 10_000);
  const close = csms.close.bind(csms);
  csms.close = async () => {
    clearInterval(trim);
    await close();
  };
  return {
    csms,
    point(identity) {
      const r = of(identity);
      return { identity, starts: r.starts, stops: r.stops, lastTransactionId: () => r.last, ...csms.point(identity) };
    },
  };
}

export interface SoakBroker {
  url: string;
  restarts(): number;
  /** Drops every connection and closes the broker; starts it again on the same port after `downMs`. */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startSoakBroker(): Promise<SoakBroker> {
  const port = await freePort();
  let broker: AedesBroker = await serveAedes([{ port }]);
  let count = 0;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    restarts: () => count,
    async restart(downMs) {
      await broker.stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      broker = await serveAedes([{ port }]);
      count++;
    },
    stop: () => broker.stop(),
  };
}

export interface MqttObserver {
  /** Session energy (Wh) by the controller's transaction id, for each session seen to end. */
  energy: Map<string, number>;
  /** Forget the running session (the controller was killed: its next `state` belongs to a new process). */
  forget(): void;
  end(): Promise<void>;
}

/**
 * Follows `<base>/state`: when a state without a transaction follows one with transaction T, its `lastSessionEnergy`
 * is T's energy. After a reconnection of the observer the first state is not attributed (a session may have ended
 * while it was away).
 */
export function observeMqtt(url: string, baseTopic: string): MqttObserver {
  const energy = new Map<string, number>();
  let running: string | undefined;
  const client: MqttClient = mqtt.connect(url, { reconnectPeriod: 300, connectTimeout: 2000 });
  client.on('connect', () => {
    running = undefined;
    client.subscribe(`${baseTopic}/state`, { qos: 1 });
  });
  client.on('error', () => undefined);
  client.on('message', (_topic, payload) => {
    let state: { transaction?: { transactionId?: string } | null; lastSessionEnergy?: number | null };
    try {
      state = JSON.parse(payload.toString()) as typeof state;
    } catch {
      return;
    }
    const id = state.transaction?.transactionId;
    if (id) running = id;
    else if (running !== undefined) {
      if (typeof state.lastSessionEnergy === 'number') energy.set(running, state.lastSessionEnergy);
      running = undefined;
    }
  });
  return {
    energy,
    forget: () => (running = undefined),
    end: () => client.endAsync(true),
  };
}
