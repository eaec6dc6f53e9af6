import type { AnyActorRef, InspectionEvent, StateValue } from 'xstate';
import { takenKey } from '../../machines/transitions.js';

/**
 * An actor system's inspection stream reduced to what the inspector shows, as plain data: the same records whether
 * the actor runs on the main thread or in the charge-point core (where they cross the thread boundary).
 */
export type InspectRecord =
  | { kind: 'event'; systemId: string; event: { type: string } & Record<string, unknown> }
  | { kind: 'microstep'; systemId: string; transitions: string[] }
  | { kind: 'snapshot'; systemId: string; status: string; value: StateValue; context: unknown };

/**
 * The systemId an inspection event's actor is shown under: the root actor under `rootId`, an invoked actor under
 * its systemId when it is one of `tracked`; undefined for anything else.
 */
export function systemIdOf(ref: AnyActorRef, rootId: string, tracked: ReadonlySet<string>): string | undefined {
  if (ref._parent === undefined) return rootId;
  const { systemId } = ref as { systemId?: string };
  return systemId !== undefined && tracked.has(systemId) ? systemId : undefined;
}

/** The record of one inspection event, or undefined for what the inspector does not show (actions, other actors). */
export function inspectRecord(event: InspectionEvent, systemId: string | undefined): InspectRecord | undefined {
  if (systemId === undefined) return undefined;
  switch (event.type) {
    case '@xstate.event':
      return { kind: 'event', systemId, event: event.event as { type: string } & Record<string, unknown> };
    case '@xstate.microstep':
      return { kind: 'microstep', systemId, transitions: event._transitions.map((t) => takenKey(t)) };
    case '@xstate.snapshot': {
      const snapshot = event.snapshot as { status: string; value?: StateValue; context?: unknown };
      return { kind: 'snapshot', systemId, status: snapshot.status, value: snapshot.value ?? '', context: snapshot.context };
    }
    default:
      return undefined;
  }
}
