import client from 'prom-client';
import { REACTIONS, type LoopDelay, type Reaction } from './core/protocol.js';
import type { LoopDelayMonitor } from './core/loop-delay.js';

/** Buckets of the safety reactions (s): fine around the 100 ms deadline of IEC 61851-1. */
const REACTION_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.03, 0.04, 0.045, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.15, 0.2, 0.5, 1, 5];

/**
 * The controller's Prometheus metrics (`GET /metrics`): the safety reactions the charge-point core measures, each
 * thread's event-loop delay, requests by route and status, and prom-client's process metrics (resident memory
 * among them). Request counts are kept in a plain map and handed to prom-client when scraped: a labelled counter's
 * increment costs more than the request's own work at the API's request rates.
 */
/**
 * prom-client's process metrics, collected once per process: collectDefaultMetrics starts a GC observer and an
 * event-loop histogram that nothing can stop, so collecting them for each controller (POST /v1/restart starts one
 * again in the same process) kept every earlier one's, with its registry, for good (issue 35).
 */
let processRegistry: client.Registry | undefined;
function processMetrics(): client.Registry {
  if (!processRegistry) {
    processRegistry = new client.Registry();
    client.collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export function createMetrics(mainLoop: LoopDelayMonitor) {
  const registry = new client.Registry();
  const processWide = processMetrics();

  const reactions = new client.Histogram({
    name: 'safety_reaction_seconds',
    help:
      "Safety reactions of the charge-point core: from the hardware's reading changing to the output commanded " +
      '(power_cut: how late after its 6 s deadline)',
    labelNames: ['reaction'],
    buckets: REACTION_BUCKETS,
    registers: [registry],
  });
  const reactionMax = new client.Gauge({
    name: 'safety_reaction_max_seconds',
    help: 'The slowest safety reaction since start, per reaction',
    labelNames: ['reaction'],
    registers: [registry],
  });
  const worstReaction = new Map<Reaction, number>();
  for (const reaction of REACTIONS) {
    reactions.zero({ reaction });
    reactionMax.set({ reaction }, 0);
  }

  let coreLoop: LoopDelay = { p50: 0, p99: 0, max: 0 };
  let coreWorst = 0;
  new client.Gauge({
    name: 'eventloop_delay_seconds',
    help: 'Event-loop delay of each thread (main: API, NFC, database; core: the charge cycle) over the last 10 s',
    labelNames: ['thread', 'stat'],
    registers: [registry],
    collect() {
      const main = mainLoop.window();
      for (const [thread, loop] of [
        ['main', main],
        ['core', coreLoop],
      ] as const) {
        for (const stat of ['p50', 'p99', 'max'] as const) this.set({ thread, stat }, loop[stat]);
      }
    },
  });
  new client.Gauge({
    name: 'eventloop_delay_max_seconds',
    help: 'The longest event-loop delay of each thread: main since the controller serves (starting is logged apart), core since start',
    labelNames: ['thread'],
    registers: [registry],
    collect() {
      this.set({ thread: 'main' }, mainLoop.worst());
      this.set({ thread: 'core' }, coreWorst);
    },
  });

  const counts = new Map<string, { method: string; route: string; status: string; n: number }>();
  const requests = new client.Counter({
    name: 'http_requests_total',
    help: 'HTTP and NFC requests by method, route (the matched route pattern; unmatched for anything else) and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of counts.values()) this.inc({ method: c.method, route: c.route, status: c.status }, c.n);
    },
  });
  void requests;

  return {
    contentType: registry.contentType,
    /** Where other features register their gauges (energy management). */
    registry,
    /** A safety reaction the core measured. */
    reaction(reaction: Reaction, seconds: number): void {
      reactions.observe({ reaction }, seconds);
      if (seconds > (worstReaction.get(reaction) ?? 0)) {
        worstReaction.set(reaction, seconds);
        reactionMax.set({ reaction }, seconds);
      }
    },
    /** The core's event-loop delay, sent with its heartbeats. */
    coreLoop(loop: LoopDelay): void {
      coreLoop = loop;
      coreWorst = Math.max(coreWorst, loop.max);
    },
    /** One request answered. */
    request(method: string, route: string, status: number): void {
      const key = `${method} ${route} ${status}`;
      const entry = counts.get(key);
      if (entry) entry.n++;
      else counts.set(key, { method, route, status: String(status), n: 1 });
    },
    /** The Prometheus text exposition. */
    text: () => client.Registry.merge([processWide, registry]).metrics(),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
