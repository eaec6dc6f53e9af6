import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loginProof } from '../machines/secrets.js';
import { httpRequest } from './harness.js';

/** The compiled entry point of `npm start` (`npm test` builds first). */
export const ENTRY = join(import.meta.dirname, '..', 'dist', 'bin', 'controller.js');

export interface Running {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  port: number;
}

/** Starts the controller as `npm start` does, in its own process; resolves once it listens (fails after `ms`). */
export async function launch(env: Record<string, string>, ms = 10_000): Promise<Running> {
  const child = spawn(process.execPath, [ENTRY], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stderr!.on('data', (d: Buffer) => stderr.push(d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening after ${ms} ms: ${stdout.join('')}${stderr.join('')}`)), ms);
    child.stdout!.on('data', (d: Buffer) => {
      stdout.push(d.toString());
      const match = /"listening on http:\/\/127\.0\.0\.1:(\d+)"/.exec(stdout.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr.join('')}`)));
  });
  return { child, stdout, stderr, port };
}

/** Ends the process as a power cut would (SIGKILL: nothing of it runs any more) and waits until it is gone. */
export async function killHard(run: Running): Promise<void> {
  run.child.kill('SIGKILL');
  await once(run.child, 'exit');
}

/**
 * Polls `done` until it gives something truthy (returned), or fails naming `what` after `ms`. For tests on real time
 * (other processes, a real tty); rules on time are tested on the manual clock.
 */
export async function until<T>(what: string, done: () => T | Promise<T>, ms = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await done();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Logs in over HTTP (as operator by default). */
export async function login(port: number, password: string, username = 'operator'): Promise<string> {
  const { json } = await httpRequest(port, 'GET', '/v1/login');
  const res = await httpRequest(port, 'POST', '/v1/login', { body: { username, password: loginProof(password, json.token) } });
  expect(res.status).toBe(200);
  return res.json.session.id;
}

/**
 * The operator's client of a launched controller: `api` with a session, `sim` (the simulator, each call answered
 * 200), `state` (GET /v1/system_state); `tags` are added to the local whitelist first.
 */
export async function operatorClient(port: number, password: string, tags: string[] = []) {
  const session = await login(port, password);
  const api = (method: string, path: string, body?: unknown) => httpRequest(port, method, path, { session, body });
  const sim = async (path: string, body?: unknown) =>
    expect((await httpRequest(port, 'POST', `/sim/${path}`, body === undefined ? {} : { body })).status).toBe(200);
  const state = async () => (await api('GET', '/v1/system_state')).json;
  if (tags.length) expect((await api('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: tags.map((id) => ({ id })) })).status).toBe(200);
  return { session, api, sim, state };
}
