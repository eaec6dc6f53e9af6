import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../field-service/slots.js';
import type { Logger } from '../../logger.js';

/** A SecurityEventNotificationRequest waiting to be sent. */
export interface QueuedSecurityEvent {
  type: string;
  timestamp: string;
  techInfo?: string;
}

/** The most events kept while the CSMS is out of reach; beyond it the oldest goes (logged). */
export const SECURITY_EVENT_QUEUE_LIMIT = 200;

/**
 * The security events not yet sent, oldest first, in the data directory (`ocpp-security-events.json`, written whole,
 * atomically and fsynced: an event recorded before a power cut is sent after it). Kept apart from the shared OCPP
 * outbox (services/ocpp/outbox.ts): that one is the database's transaction queue, its actions an enumeration of the
 * schema, changed at the same time by the 2.0.1 adapter's work.
 */
export function openSecurityEventQueue(dataDir: string, logger: Pick<Logger, 'warn' | 'error'>) {
  const file = join(dataDir, 'ocpp-security-events.json');
  let events: QueuedSecurityEvent[] = [];
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (Array.isArray(value)) events = value as QueuedSecurityEvent[];
    else logger.error({ file }, 'OCPP: the security event queue file is unreadable, starting empty');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') logger.error({ file }, 'OCPP: the security event queue file is unreadable, starting empty');
  }

  const save = (next: QueuedSecurityEvent[]) => {
    mkdirSync(dataDir, { recursive: true });
    writeFileAtomic(file, `${JSON.stringify(next)}\n`);
    events = next;
  };

  return {
    /** The oldest event, or undefined. */
    head: (): QueuedSecurityEvent | undefined => events[0],
    size: () => events.length,
    /** Appends an event (written before it returns); the oldest goes when the queue is full. */
    push(event: QueuedSecurityEvent): void {
      const next = [...events, event];
      if (next.length > SECURITY_EVENT_QUEUE_LIMIT) {
        const dropped = next.splice(0, next.length - SECURITY_EVENT_QUEUE_LIMIT);
        logger.warn({ dropped: dropped.map((e) => e.type) }, 'OCPP: the security event queue is full, the oldest events were dropped');
      }
      save(next);
    },
    /** Removes `event` when it is still the oldest (it was sent). */
    shift(event: QueuedSecurityEvent): void {
      if (events[0] === event) save(events.slice(1));
    },
  };
}

export type SecurityEventQueue = ReturnType<typeof openSecurityEventQueue>;
