/**
 * The NFC part of `npm run bench` (alone: `npm run bench -- --nfc`): an API request's round trip over the simulated
 * NFC link — the phone's Type 4 Tag write and read, the PN532 frames on a 115200-baud UART, the controller's driver,
 * link actor, message mapping and the app — against the wire-time floor: the same bytes on the UART at 115200 baud
 * plus the APDUs' ISO 14443 air time at 106 kbps, as if nothing else took any time. Target: ratio <= 1.5.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { wireFloorMs, type WireStats } from '../drivers/pn532/sim.js';
import { loginProof } from '../machines/secrets.js';
import { loadConfig } from '../services/config.js';
import { startController } from '../services/controller.js';
import { createLogger } from '../services/logger.js';

export const NFC_BAUD = 115200;
export const NFC_TARGET_RATIO = 1.5;
const ROUNDS = 15;
const PASSWORD = 'bench-operator-password';

export interface NfcRow {
  figure: string;
  measured: string;
  target?: string;
  pass?: boolean;
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

export async function benchNfc(): Promise<NfcRow[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cc-bench-nfc-'));
  const logger = await createLogger({ logLevel: 'info', logFormat: 'json' }, new Writable({ write: (_c, _e, done) => done() }));
  const controller = await startController({
    config: loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, OPERATOR_PASSWORD: PASSWORD }),
    logger,
    simWire: { baudRate: NFC_BAUD },
    showInitialPassword: () => undefined,
  });
  try {
    controller.nfc.setRfidMode('hybrid');
    const phone = controller.simulator!.nfcPhone();
    await phone.activated;
    await phone.detect();
    const stats = controller.simulator!.nfcStats();
    let id = 0;
    /** One request's round trip: measured time and its wire floor. */
    const roundTrip = async (text: (messageID: string) => string) => {
      const before = { ...stats };
      const t0 = performance.now();
      const answer = await phone.request(text(String(++id)));
      const ms = performance.now() - t0;
      const delta: WireStats = { uartBytes: stats.uartBytes - before.uartBytes, airFrames: stats.airFrames - before.airFrames, airBytes: stats.airBytes - before.airBytes };
      return { ms, floor: wireFloorMs(delta, NFC_BAUD), answer };
    };
    const login = async () => {
      const token = await roundTrip((m) => `{"path":"/login","method":"GET","authorization":"","messageID":"${m}"}`);
      const tokenValue = /"token":"([0-9a-f]{32})"/.exec(token.answer)![1]!;
      const post = await roundTrip((m) => `{"path":"/login","method":"POST","authorization":"","messageID":"${m}"},{"username":"operator","password":"${loginProof(PASSWORD, tokenValue)}"}`);
      const session = /"id":"([^"]+)"/.exec(post.answer)![1]!;
      return { ms: token.ms + post.ms, floor: token.floor + post.floor, session };
    };
    const logins: Array<{ ms: number; floor: number }> = [];
    const states: Array<{ ms: number; floor: number }> = [];
    for (let i = 0; i < ROUNDS; i++) {
      const l = await login();
      logins.push(l);
      states.push(await roundTrip((m) => `{"path":"/system_state","method":"GET","authorization":"${l.session}","messageID":"${m}"}`));
    }
    const row = (name: string, runs: Array<{ ms: number; floor: number }>): NfcRow[] => {
      const ratio = median(runs.map((r) => r.ms / r.floor));
      return [
        { figure: `NFC ${name}: ratio to the wire floor (median)`, measured: ratio.toFixed(2), target: `<= ${NFC_TARGET_RATIO}`, pass: ratio <= NFC_TARGET_RATIO },
        { figure: `NFC ${name}: round trip / floor (median)`, measured: `${median(runs.map((r) => r.ms)).toFixed(1)} / ${median(runs.map((r) => r.floor)).toFixed(1)} ms` },
      ];
    };
    return [...row('login (GET + POST /login)', logins), ...row('GET /system_state', states)];
  } finally {
    await controller.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
