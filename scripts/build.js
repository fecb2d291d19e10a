#!/usr/bin/env node
// `npm run build`: compiles src/ and tools/fake-upstream/ to dist/ so the CLI can run on plain node
// (the tsx loader costs about 40 MB of resident memory). Copies the non-TypeScript files the code
// reads next to itself (price tables) and writes the stamp bin/switchyard.js checks for staleness.
// `--if-typescript` (used by `prepare`): an install without devDependencies skips the build instead
// of failing, and the CLI keeps running through tsx.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST, listBuildInputs, STAMP } from './dist-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  if (process.argv.includes('--if-typescript')) {
    process.stderr.write('switchyard build skipped: typescript is not installed (the CLI will run through tsx)\n');
    process.exit(0);
  }
  process.stderr.write('switchyard build: typescript is not installed (run npm ci)\n');
  process.exit(1);
}

// Taken before tsc reads anything: a source saved during the build is then newer than the stamp.
const startedAt = Date.now();
const inputs = listBuildInputs(root);
// A clean tree every time, so deleted sources do not live on as stale .js files.
rmSync(join(root, DIST), { recursive: true, force: true });
const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (compiled.status !== 0) {
  // No stamp on failure: the CLI then falls back to tsx instead of running a half-written dist.
  process.exit(compiled.status ?? 1);
}

// .js beside .ts can only be a stray compile output (the real one is in dist already).
const assets = inputs.filter((rel) => !/\.[jt]s$/.test(rel) && statSync(join(root, rel)).isFile());
for (const rel of assets) {
  const to = join(root, DIST, rel);
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(join(root, rel), to);
}

// Written last: its presence means the build completed.
writeFileSync(join(root, STAMP), `${JSON.stringify({ startedAt, inputs })}\n`);
process.stdout.write(`built ${DIST}/ (${assets.length} asset files copied)\n`);

// The dashboard (ui/ -> ui/build, served at /ui) is bundled last; without its devDependencies
// (preact, htm, uplot, esbuild) it is skipped with a message and /ui answers 503.
const { buildUi } = await import('./build-ui.js');
try {
  await buildUi();
} catch (err) {
  process.stderr.write(`switchyard ui build failed: ${err instanceof Error ? err.message : err}\n`);
  process.exit(1);
}
