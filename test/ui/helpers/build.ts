// The dashboard tests run against the real bundle: built here (esbuild takes about a second) so a
// test never reads a stale ui/build. Two test files building at once is safe: the build writes
// every file under a temporary name and renames it into place, and the same sources give the same
// hashed names.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../..', import.meta.url));
export const UI_BUILD = join(REPO, 'ui', 'build');

export interface Manifest {
  js: string;
  css: string;
  js_gzip_bytes: number;
  files: Record<string, { bytes: number; gzip_bytes: number }>;
}

export function buildUi(): Manifest {
  execFileSync(process.execPath, [join(REPO, 'scripts', 'build-ui.js')], { cwd: REPO, stdio: 'pipe' });
  return JSON.parse(readFileSync(join(UI_BUILD, 'manifest.json'), 'utf8')) as Manifest;
}
