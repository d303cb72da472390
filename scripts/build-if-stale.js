// Runs `nest build` only when dist/ is missing or older than a source file, so
// commands that run the built code (npm start, migrate, keys, backup) start at once on a built tree.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
// A build writes dist/ afresh (nest-cli.json's deleteOutDir), so this file's time is the last build's.
const MARK = join(ROOT, 'dist', 'main.js');

// A folder's own time counts too: deleting or renaming a source changes no file's time, only its folder's.
function newestSource(directory) {
  let newest = statSync(directory).mtimeMs;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

if (!existsSync(MARK) || statSync(MARK).mtimeMs < newestSource(join(ROOT, 'src'))) {
  process.stderr.write('Building dist/ (nest build)...\n');
  const build = spawnSync('npx', ['nest', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
