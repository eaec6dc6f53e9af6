/**
 * The charge-point core's thread (node:worker_threads): started by the main thread (services/core/link.ts) with its
 * CoreInit as `workerData`. It owns the charge cycle, the devices it commands and their timers, on an event loop
 * that no API request, NFC exchange, JSON serialisation, log write or database commit can delay.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runCore, type CoreInit } from './run.js';

if (!parentPort) throw new Error('services/core/worker.js runs as a worker thread of the controller');
runCore(parentPort, workerData as CoreInit);
