/**
 * `npm run csms -- [options]`: a small OCPP-J central system (1.6, or 2.0.1 with `--ocpp`) for development. It accepts every charge point
 * (BootNotification Accepted, every tag Accepted, transaction ids 1, 2, …), validates every frame both ways (ocpp-rpc
 * strict mode and typed-ocpp) and prints each one. Lines typed on stdin are calls to the connected charge point:
 * `<Action> <JSON payload>`, e.g. `RemoteStartTransaction {"idTag":"04A1B2C3"}`.
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { OCPP_PROTOCOLS, startCsms, type OcppProtocol } from './central-system.js';

const PROFILE_EXAMPLE = {
  connectorId: 0,
  csChargingProfiles: {
    chargingProfileId: 1,
    stackLevel: 1,
    chargingProfilePurpose: 'ChargePointMaxProfile',
    chargingProfileKind: 'Relative',
    chargingSchedule: { chargingRateUnit: 'A', chargingSchedulePeriod: [{ startPeriod: 0, limit: 10 }] },
  },
};
const USAGE = `usage: npm run csms -- [--port 9000] [--host 127.0.0.1] [--password <basic-auth password>]
                       [--cert server.pem --key server.key]   (wss://, security profile 2)
                       [--client-ca ca.pem]                   (with --cert: only charging stations with a
                                                               certificate of this CA, security profile 3)
                       [--pending <seconds>]                  (answer the first BootNotification Pending)
                       [--ocpp 1.6|2.0.1|2.0.1,1.6]           (the versions it speaks, preferred first; default 1.6)

Then set on the controller (PATCH /v1/settings as an installer, then restart it):
  OcppEnabled 1, OcppUrl ws://<this host>:<port>/ocpp (wss:// with --cert), OcppChargeBoxId <any>,
  OcppPassword <the same password> with --password, OcppCaFile <your CA's PEM> with --cert,
  OcppVersions ocpp2.0.1,ocpp1.6 with --ocpp 2.0.1.

Type a call to the connected charge point as <Action> <JSON>, e.g.
  RemoteStartTransaction {"idTag":"04A1B2C3"}
  GetConfiguration {}
  SetChargingProfile ${JSON.stringify(PROFILE_EXAMPLE)}
and under 2.0.1 e.g.
  GetVariables {"getVariableData":[{"component":{"name":"OCPPCommCtrlr"},"variable":{"name":"HeartbeatInterval"}}]}
  GetBaseReport {"requestId":1,"reportBase":"FullInventory"}
  GetCompositeSchedule {"evseId":1,"duration":3600,"chargingRateUnit":"A"}`;

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '9000' },
    host: { type: 'string', default: '127.0.0.1' },
    password: { type: 'string' },
    cert: { type: 'string' },
    key: { type: 'string' },
    'client-ca': { type: 'string' },
    pending: { type: 'string' },
    ocpp: { type: 'string', default: '1.6' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number, got ${values.port}\n${USAGE}`);
  process.exit(2);
}
if (Boolean(values.cert) !== Boolean(values.key)) {
  console.error(`--cert and --key go together\n${USAGE}`);
  process.exit(2);
}
if (values['client-ca'] && !values.cert) {
  console.error(`--client-ca needs --cert and --key (mutual TLS is TLS)\n${USAGE}`);
  process.exit(2);
}
const protocols = values.ocpp.split(',').map((v) => `ocpp${v.trim()}`);
if (protocols.some((p) => !(OCPP_PROTOCOLS as readonly string[]).includes(p))) {
  console.error(`--ocpp takes 1.6, 2.0.1 or both (comma-separated, preferred first), got ${values.ocpp}\n${USAGE}`);
  process.exit(2);
}

const stamp = () => new Date().toISOString().slice(11, 23);
const csms = await startCsms({
  port,
  host: values.host,
  ...(values.password !== undefined ? { password: values.password } : {}),
  ...(values.cert && values.key
    ? {
        tls: {
          cert: readFileSync(values.cert),
          key: readFileSync(values.key),
          ...(values['client-ca'] ? { clientCa: readFileSync(values['client-ca']) } : {}),
        },
      }
    : {}),
  log: (line) => console.log(`${stamp()} ${line}`),
  protocols: protocols as OcppProtocol[],
});
if (values.pending) {
  let first = true;
  csms.answer('BootNotification', () => {
    const status = first ? 'Pending' : 'Accepted';
    first = false;
    return { status, currentTime: new Date().toISOString(), interval: status === 'Pending' ? Number(values.pending) : 300 };
  });
}
console.log(`${stamp()} central system listening on ${csms.url} (every frame is printed; type "<Action> <JSON>" to call the charge point)`);

let reported = 0;
setInterval(() => {
  for (; reported < csms.invalid.length; reported++) console.log(`${stamp()} INVALID ${csms.invalid[reported]}`);
}, 200).unref();

createInterface({ input: process.stdin }).on('line', (line) => {
  const text = line.trim();
  if (!text) return;
  const space = text.indexOf(' ');
  const action = space < 0 ? text : text.slice(0, space);
  let payload: Record<string, unknown> = {};
  try {
    payload = space < 0 ? {} : (JSON.parse(text.slice(space + 1)) as Record<string, unknown>);
  } catch (err) {
    console.log(`${stamp()} not JSON: ${(err as Error).message}`);
    return;
  }
  csms.call(action, payload).then(
    (answer) => console.log(`${stamp()} ${action} answered ${JSON.stringify(answer)}`),
    (err: Error) => console.log(`${stamp()} ${action} failed: ${err.message}`),
  );
});

const stop = () => void csms.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
