// The gateway's own version (package.json), for user-agents and the like. Found by walking up from
// this file, which sits at a different depth in src/ and in the compiled dist/src/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function gatewayVersion(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'switchyard' && typeof pkg.version === 'string') {
        cached = pkg.version;
        return cached;
      }
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  cached = '0.0.0';
  return cached;
}
