/**
 * The first start's password box (and a factory reset's): printed on the console, never the log, after the start's
 * log lines, with where to log in and where the data lives (docs/configuration.md, "First start").
 */

/** Where to log in first, and where the controller keeps its data: shown with the first start's password. */
export interface FirstStart {
  url: string;
  dataDir: string;
}

/** The first start's box: framed, so it stands out among the log lines (docs/configuration.md, "First start"). */
export function initialPasswordBox(username: string, password: string, where: FirstStart): string {
  const lines = [
    'FIRST START',
    '',
    `Log in at ${where.url}/ as "${username}" (role operator) with the password`,
    '',
    `    ${password}`,
    '',
    'It is shown only this once: note it now. Change it after logging in',
    `(Accounts) or with: npm run accounts -- set ${username} --role operator`,
    '',
    `Data directory (database, settings, accounts): ${where.dataDir}`,
  ];
  const width = Math.max(...lines.map((l) => l.length));
  const rule = '#'.repeat(width + 4);
  return `\n${rule}\n${lines.map((l) => `# ${l.padEnd(width)} #`).join('\n')}\n${rule}\n\n`;
}

export function printInitialPassword(username: string, password: string, where: FirstStart): void {
  process.stderr.write(initialPasswordBox(username, password, where));
}
