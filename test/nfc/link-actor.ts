import { createActor, SimulatedClock } from 'xstate';
import { nfcLinkMachine } from '../../machines/nfc-link.js';

export const hex = (b: Uint8Array | null | undefined) => (b ? Buffer.from(b).toString('hex') : null);
export const apdu = (h: string) => Uint8Array.from(Buffer.from(h.replace(/\s/g, ''), 'hex'));

/** The NFC link actor alone on a simulated clock, every effect logged (`respond 9000`, `submit d10100`, …). */
export function startLink() {
  const clock = new SimulatedClock();
  const log: string[] = [];
  const actor = createActor(
    nfcLinkMachine.provide({
      actions: {
        respond: ({ context }) => log.push(`respond ${hex(context.reply)}`),
        submit: (_, { message }) => log.push(`submit ${hex(message)}`),
        refuse: (_, { message }) => log.push(`refuse ${hex(message)}`),
        showReading: () => log.push('showReading'),
        hideReading: () => log.push('hideReading'),
        resumeChecking: () => log.push('resumeChecking'),
      },
    }),
    { clock },
  );
  actor.start();
  const send = (...cmds: string[]) => cmds.forEach((c) => actor.send({ type: 'APDU', apdu: apdu(c) }));
  return { actor, clock, log, send };
}
