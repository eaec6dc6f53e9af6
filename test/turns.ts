/** Counts turns of the event loop: a chain of setImmediate callbacks, one per turn, until `stop`. */
export function turnCounter(): { now(): number; stop(): void } {
  let turns = 0;
  let running = true;
  const spin = () => {
    turns++;
    if (running) setImmediate(spin);
  };
  setImmediate(spin);
  return { now: () => turns, stop: () => void (running = false) };
}

/** Turns of the event loop while `work` runs. */
export async function loopTurnsDuring(work: () => Promise<unknown>): Promise<number> {
  const turns = turnCounter();
  try {
    await work();
  } finally {
    turns.stop();
  }
  return turns.now();
}
