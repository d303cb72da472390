import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Imported first by every entry point (main, keys, backup, migrate): on an
 * older Node the native SQLite driver, built for the project's Node, crashes
 * the process with no word, so the version is checked before anything else
 * loads. Only Node's own modules may be imported here.
 */

/** The lowest Node package.json's `engines` accepts, as [major, minor]. */
export function minimumNodeOf(engines: string): [number, number] {
  const match = /^>=\s*(\d+)(?:\.(\d+))?/.exec(engines.trim());
  if (!match) throw new Error(`package.json's engines.node must read ">=MAJOR.MINOR", not "${engines}"`);
  return [Number(match[1]), Number(match[2] ?? 0)];
}

/** The line to print when `version` (as process.versions.node gives it) is older than `minimum`; undefined when it will do. */
export function unsupportedNodeLine(version: string, minimum: [number, number], executable: string): string | undefined {
  const [major, minor] = version.split('.').map(Number);
  if (major > minimum[0] || (major === minimum[0] && minor >= minimum[1])) return undefined;
  return (
    `animal-store needs Node ${minimum.join('.')} or later; ${executable} is Node ${version}. ` +
    'Run it through npm (npm start, npm run keys, npm run migrate, npm run backup), which uses the Node that npm ci installed, ' +
    'or as node_modules/.bin/node dist/main.js'
  );
}

// package.json sits two folders up from both src/ops and dist/ops, and ships in the image.
const { engines } = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { engines: { node: string } };
const line = unsupportedNodeLine(process.versions.node, minimumNodeOf(engines.node), process.execPath);
if (line) {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}
