// Decides whether dist/ (the tsc output of `npm run build`) still matches the sources. Shared by the
// build, which writes the stamp, and bin/switchyard.js, which checks it on every CLI start.
//
// The stamp lists every compiled source file and directory, so the check is one small read plus
// about 400 stat calls (2-3 ms) with no directory walk. Directories are listed because their
// mtime changes when an entry is added, removed or renamed, which file mtimes alone would miss.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What tsconfig.build.json compiles, relative to the package root. */
export const SOURCE_ROOTS = ['src', 'tools/fake-upstream'];
export const DIST = 'dist';
export const STAMP = join(DIST, '.build-stamp.json');

/** Tests and their fixtures are not compiled, so editing them must not make dist stale. */
export function isBuildInput(name) {
  return !name.endsWith('.test.ts') && name !== '__fixtures__' && name !== 'test' && name !== 'node_modules';
}

/** Every build input under the source roots (directories included), relative to `root`. */
export function listBuildInputs(root) {
  const out = [];
  const walk = (rel) => {
    out.push(rel);
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      if (!isBuildInput(entry.name)) continue;
      const p = join(rel, entry.name);
      if (entry.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  for (const r of SOURCE_ROOTS) walk(r);
  return out;
}

/** `missing` (never built, or the build failed), `stale` (a source changed after the build started) or `fresh`. */
export function distState(root) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, STAMP), 'utf8'));
  } catch {
    return 'missing';
  }
  for (const rel of stamp.inputs) {
    const st = statSync(join(root, rel), { throwIfNoEntry: false });
    if (st === undefined || st.mtimeMs > stamp.startedAt) return 'stale';
  }
  return 'fresh';
}
