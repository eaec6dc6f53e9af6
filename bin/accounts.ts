import { mkdir } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { openDatabase } from '../db/client.js';
import { createAccounts, generatePassword, ROLES, type Role } from '../services/accounts.js';
import { ConfigError, loadConfig, type Config } from '../services/config.js';
import { createEventLog } from '../services/events.js';
import { OperationError } from '../services/errors.js';

const USAGE = `Manage login accounts on the controller's database (DATA_DIR / DATABASE_URL as for npm start).

  npm run accounts -- list
  npm run accounts -- set <username> --role <${ROLES.join('|')}> [--password <password> | --password -]
  npm run accounts -- remove <username>

set adds the account or resets its role and password. Without --password a random password is generated and
printed once; "--password -" reads it from standard input (keeps it out of the process list and shell history).
User names: 1 to 64 letters, digits, ".", "_", "-", "@" (not "." or ".."); passwords 8 to 255 characters; at most
100 accounts. The last account of the highest role present can neither be removed nor given a lower role. Every
change is written to the controller's event log (by shell:<your user name>, never the password), and ends the
account's session in a running controller at its next request.`;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Runs the command; returns the exit code. */
async function run(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { role: { type: 'string' }, password: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, username] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const config = loadConfig(process.env);
  if (config.defaultDatabaseFile) await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  // On stderr, so that the output of `list` stays one account a line; before opening, so a failure names it too.
  process.stderr.write(`Database: ${databaseName(config)}\n`);
  const database = await openDatabase(config.databaseUrl);
  const events = createEventLog({ database, now: Date.now, logger: silent });
  const accounts = createAccounts(database, Date.now, { events, owner: `shell:${osUser()}` });
  try {
    switch (command) {
      case 'list': {
        const rows = await accounts.list();
        if (rows.length === 0) process.stdout.write('No accounts.\n');
        for (const a of rows) process.stdout.write(`${a.username}\t${a.role}\t${a.createdAt.toISOString()}\n`);
        return 0;
      }
      case 'set': {
        if (!username) throw new UsageError('set needs a user name');
        const role = values.role as Role | undefined;
        if (!role || !ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
        const given = values.password === '-' ? await readStdin() : values.password;
        const password = given ?? generatePassword();
        const outcome = await accounts.set(username, role, password);
        process.stdout.write(`${outcome === 'added' ? 'Added' : 'Updated'} account "${username}" (role ${role}).\n`);
        if (given === undefined) process.stdout.write(`Password (shown only now): ${password}\n`);
        return 0;
      }
      case 'remove': {
        if (!username) throw new UsageError('remove needs a user name');
        await accounts.remove('owner', username);
        process.stdout.write(`Removed account "${username}".\n`);
        return 0;
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } finally {
    await events.settled();
    await database.close();
  }
}

/** The event log's own log lines are not for the shell: what the command did is printed. */
const silent = pino({ enabled: false });

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? 'unknown'}`;
  }
}

class UsageError extends Error {}

/**
 * The database the command works on, as a person recognises it: the file's path, or a server's address without
 * its credentials (a user name, password or `authToken` in DATABASE_URL is never printed).
 */
function databaseName(config: Pick<Config, 'databaseUrl' | 'defaultDatabaseFile'>): string {
  if (config.defaultDatabaseFile) return config.defaultDatabaseFile;
  if (config.databaseUrl.startsWith('file:'))
    return resolve(
      config.databaseUrl
        .slice('file:'.length)
        .replace(/^\/\/(?=\/)/, '')
        .replace(/\?.*$/, ''),
    );
  try {
    const url = new URL(config.databaseUrl);
    return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname} (DATABASE_URL)`;
  } catch {
    return 'DATABASE_URL';
  }
}

process.umask(0o077);
run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError || err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    if (err instanceof OperationError) {
      // The rules of services/accounts.ts: a request they refuse exits with 2, an unknown account with 1.
      process.stderr.write(`${err.message}.\n`);
      process.exit(err.kind === 'not-found' ? 1 : 2);
    }
    process.stderr.write(`accounts failed: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
