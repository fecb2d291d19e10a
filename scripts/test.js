#!/usr/bin/env node
// Runs every *.test.ts under src/, tools/, test/, bench/ with node's built-in runner (through tsx).
// Extra arguments are passed as file filters: `npm test -- providers` runs files whose path contains "providers".
// Files named *.serial.test.ts run last, one at a time (see below).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const roots = ['src', 'tools', 'test', 'bench'];
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
// Files named *.serial.test.ts measure wall-clock time against a budget (the dashboard's render
// time at a million rows): they run after the others, alone, so a neighbouring file's load cannot
// decide their result.
const serial = selected.filter((f) => f.endsWith('.serial.test.ts'));
const parallel = selected.filter((f) => !f.endsWith('.serial.test.ts'));
function run(list, concurrency) {
  if (list.length === 0) return 0;
  const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-timeout=120000', ...list];
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } });
  return r.status ?? 1;
}
const first = run(parallel, 2);
const second = run(serial, 1);
process.exit(first !== 0 ? first : second);
