import type { MqttClient } from 'mqtt';
import type { Logger } from '../logger.js';
import type { MqttOptions } from './options.js';
import type { Values } from './state.js';

/**
 * Messages handed to the client and not yet acknowledged, at most (brokers cap what a client may have in flight:
 * mosquitto takes 20 QoS 2 messages at a time and drops the rest). The others wait, the latest per topic.
 */
export const MAX_IN_FLIGHT = 10;

/** One connection to the broker, with the options it was opened with and what it published. */
export interface Link {
  client: MqttClient;
  options: MqttOptions;
  connected: boolean;
  /** The attempt failed or the connection was lost (reported once). */
  ended: boolean;
  /** The values last published on this connection, per group. */
  states: Values;
  meter: Values;
  json: string;
  /**
   * Messages waiting for a free place in flight: the latest per topic and retain flag (a command result each its
   * own), so a retained message (a clear) is never replaced by a later one that is not retained.
   */
  outbox: Map<string, { topic: string; payload: string; retain: boolean }>;
  inFlight: number;
  /** Called when the outbox is empty and nothing is in flight. */
  drained?: () => void;
}

/** The outbox of each connection: what waits for a place in flight, sent in order as acknowledgements come back. */
export function createOutbox(logger: Logger) {
  let resultSeq = 0;

  /**
   * Queues a message. It replaces the one waiting on the same topic with the same retain flag (the broker keeps only
   * the latest retained one); a retained one stays before a later one that is not retained. `unique`: never replaced
   * (command results).
   */
  function publish(l: Link, topic: string, payload: string, retain: boolean, unique = false): void {
    const key = unique ? `${topic}\u0000${++resultSeq}` : `${topic}\u0000${retain ? 'retained' : ''}`;
    l.outbox.delete(key);
    l.outbox.set(key, { topic, payload, retain });
    pump(l);
  }

  /** Hands waiting messages to the client while places in flight are free; says when all is delivered. */
  function pump(l: Link): void {
    while (l.inFlight < MAX_IN_FLIGHT && l.outbox.size > 0) {
      const [key, message] = l.outbox.entries().next().value!;
      l.outbox.delete(key);
      l.inFlight++;
      l.client.publish(message.topic, message.payload, { qos: l.options.qos, retain: message.retain }, (err) => {
        l.inFlight--;
        if (err) logger.debug({ topic: message.topic, err: err.message }, 'MQTT publish failed');
        if (l.ended && !l.connected) l.outbox.clear(); // the connection is gone: nothing more goes out
        pump(l);
      });
    }
    if (l.inFlight === 0 && l.outbox.size === 0) l.drained?.();
  }

  return { publish, pump };
}
