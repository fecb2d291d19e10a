#!/usr/bin/env node
// Runs the compiled CLI from dist/ (`npm run build`, done by `npm ci` through `prepare`) when it is
// up to date: plain node uses about 40 MB less memory than the tsx loader. Otherwise the TypeScript
// sources run through tsx, so a checkout without a build, or with edits since the last one, still
// behaves exactly like the sources.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { distState } from '../scripts/dist-stamp.js';

// glibc's malloc settings come first: a thread keeps the arena it first allocated from, and loading
// the CLI puts threads to work (src/cli/malloc.ts). The addon is optional: absent where it could
// not be built.
try {
  createRequire(import.meta.url)('switchyard-malloc').tuneForGateway();
} catch {}

const root = fileURLToPath(new URL('..', import.meta.url));
const state = distState(root);
let main;
if (state === 'fresh') {
  ({ main } = await import('../dist/src/cli/main.js'));
} else {
  if (state === 'stale') {
    process.stderr.write('switchyard: dist/ is older than the sources, running them through tsx (npm run build)\n');
  }
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
await main(process.argv.slice(2));
