/** What an in-process restart needs of a controller: the port it listens on (the next one takes it) and its stop. */
export interface Restartable {
  port: number;
  close(): Promise<void>;
}

/**
 * POST /v1/restart where the hardware can be started again in this process (HARDWARE=sim): the running controller
 * closes (everything it holds released: database, timers, core, listeners) and the next starts on its port. One
 * restart at a time; asking again while one runs joins it. `start` receives the port (undefined: the configured one)
 * and the restart function to give the new controller.
 */
export function inProcessRestarts<C extends Restartable>(
  start: (port: number | undefined, restart: () => void) => Promise<C>,
  onFailure: (err: unknown) => void,
) {
  let current: C | undefined;
  let restarting: Promise<void> | undefined;
  const restart = (): void => {
    restarting ??= (async () => {
      await current!.close();
      current = await start(current!.port, restart);
    })().then(() => {
      restarting = undefined;
    }, onFailure);
  };
  return {
    async start(): Promise<C> {
      current = await start(undefined, restart);
      return current;
    },
    restart,
    /** The running controller. */
    current: (): C => current!,
    /** Resolves once no restart runs. */
    settled: async (): Promise<void> => {
      while (restarting) await restarting;
    },
  };
}
