/**
 * The charge-point core's thread (node:worker_threads): started by the main thread (services/core-link.ts) with its
 * CoreInit as `workerData`. It owns the charge cycle, the devices it commands and their timers, on an event loop
 * that no API request, NFC exchange, JSON serialisation, log write or database commit can delay.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { CORE_NICE } from './protocol.js';
import { runCore, type CoreInit, type CoreLocal } from './run.js';

function raisePriority(): CoreLocal['priority'] {
  try {
    setPriority(0, CORE_NICE);
    return { nice: CORE_NICE };
  } catch (err) {
    return { unchanged: (err as NodeJS.ErrnoException).code ?? String(err) };
  }
}

if (!parentPort) throw new Error('services/core/worker.js runs as a worker thread of the controller');
runCore(parentPort, workerData as CoreInit, { priority: raisePriority() });
