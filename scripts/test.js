#!/usr/bin/env node
// Runs every *.test.ts under src/, tools/, test/ with node's built-in runner (through tsx).
// Extra arguments are passed as file filters: `npm test -- providers` runs files whose path contains "providers".
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const roots = ['src', 'tools', 'test'];
const files = [];
function walk(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(p);
  }
}
for (const r of roots) {
  try {
    walk(r);
  } catch {}
}
const filters = process.argv.slice(2);
const selected = filters.length ? files.filter((f) => filters.some((x) => f.includes(x))) : files;
selected.sort();
const args = ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=120000', ...selected];
const r = spawnSync(process.execPath, args, { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } });
process.exit(r.status ?? 1);
