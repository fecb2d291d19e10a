#!/usr/bin/env node
// `npm run build`: compiles src/ and tools/fake-upstream/ to dist/ so the CLI can run on plain node
// (the tsx loader costs about 40 MB of resident memory). Copies the non-TypeScript files the code
// reads next to itself (price tables) and writes the stamp bin/switchyard.js checks for staleness.
// `--if-typescript` (used by `prepare`): an install without devDependencies skips the build instead
// of failing, and the CLI keeps running through tsx.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
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
// A clean tree every time, so deleted sources do not live on as stale .js files. It is built beside
// dist/ and swapped in at the end: a gateway already running from dist/ loads some modules lazily
// (the provider key verifier, on the first credential added), and deleting dist/ for the length of
// a compile made those imports fail with ERR_MODULE_NOT_FOUND.
const next = `${DIST}.next-${process.pid}`;
rmSync(join(root, next), { recursive: true, force: true });
const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', next], {
  cwd: root,
  stdio: 'inherit',
});
if (compiled.status !== 0) {
  // Nothing swapped in on failure; a previous dist/ without a fresh stamp makes the CLI run the
  // sources through tsx instead.
  rmSync(join(root, next), { recursive: true, force: true });
  rmSync(join(root, STAMP), { force: true });
  process.exit(compiled.status ?? 1);
}

// .js beside .ts can only be a stray compile output (the real one is in dist already).
const assets = inputs.filter((rel) => !/\.[jt]s$/.test(rel) && statSync(join(root, rel)).isFile());
for (const rel of assets) {
  const to = join(root, next, rel);
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(join(root, rel), to);
}

// Written last: its presence means the build completed.
writeFileSync(join(root, next, relative(DIST, STAMP)), `${JSON.stringify({ startedAt, inputs })}\n`);
// Two renames: dist/ is missing only between them, not for the whole compile.
const old = `${DIST}.old-${process.pid}`;
if (existsSync(join(root, DIST))) renameSync(join(root, DIST), join(root, old));
renameSync(join(root, next), join(root, DIST));
rmSync(join(root, old), { recursive: true, force: true });
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
