import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

/**
 * A pseudo-terminal for a driver to open as its serial port, with the other end in the test: what the driver
 * writes arrives in `onData`, and `write` sends bytes to the driver. The driver uses the real serialport binding on
 * a real tty device, as it does with a USB adapter; the device at the other end is the test's (a simulated chip or
 * meter). Node cannot open a pty itself, so a small Python program holds it and relays the bytes over its stdin and
 * stdout; `path` becomes a symbolic link to the pty's slave.
 */

const RELAY = `
import os, pty, sys, tty, select
master, slave = pty.openpty()
tty.setraw(slave)
os.symlink(os.ttyname(slave), sys.argv[1])
sys.stdout.buffer.write(b'R'); sys.stdout.flush()
out = sys.stdout.fileno()
while True:
    ready, _, _ = select.select([master, 0], [], [])
    if master in ready:
        try:
            data = os.read(master, 4096)
        except OSError:
            data = b''
        if data:
            os.write(out, data)
    if 0 in ready:
        data = os.read(0, 4096)
        if not data:
            break
        os.write(master, data)
`;

/** Whether a pseudo-terminal can be made here (Python 3 with its pty module). */
export const ptyAvailable = spawnSync('python3', ['-c', 'import pty, tty, select'], { stdio: 'ignore' }).status === 0;

export interface Pty {
  write(bytes: Uint8Array): void;
  onData(listener: (bytes: Buffer) => void): void;
  /** Ends the relay (the link at `path` is removed). */
  close(): Promise<void>;
}

/** Makes a pseudo-terminal whose slave is reachable at `path` (which must not exist yet). */
export async function openPty(path: string): Promise<Pty> {
  const child: ChildProcess = spawn('python3', ['-u', '-c', RELAY, path], { stdio: ['pipe', 'pipe', 'inherit'] });
  const listeners: Array<(bytes: Buffer) => void> = [];
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the pty relay ended with ${code}`)));
    child.stdout!.once('data', (first: Buffer) => {
      resolve();
      if (first.length > 1) for (const l of listeners) l(first.subarray(1));
      child.stdout!.on('data', (bytes: Buffer) => {
        for (const l of listeners) l(bytes);
      });
    });
  });
  return {
    write: (bytes) => void child.stdin!.write(bytes),
    onData: (listener) => void listeners.push(listener),
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin!.end();
      child.kill('SIGTERM');
      await exited;
      rmSync(path, { force: true });
    },
  };
}
