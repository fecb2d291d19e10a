// `switchyard openapi [--write]`: regenerates the committed openapi.yaml and mcp-tools.json from the
// operation list (the drift test fails until this is run after an operation changes).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiYaml, toolsJson } from '../manage/openapi.ts';
import { OPERATIONS } from '../manage/operations.ts';
import { PROXY_PATHS } from '../manage/proxy-paths.ts';

export async function openapiCommand(opts: { write: boolean }): Promise<number | undefined> {
  const yaml = openApiYaml(OPERATIONS, PROXY_PATHS);
  if (!opts.write) {
    process.stdout.write(yaml);
    return 0;
  }
  const root = process.cwd();
  writeFileSync(join(root, 'openapi.yaml'), yaml);
  writeFileSync(join(root, 'mcp-tools.json'), toolsJson(OPERATIONS));
  process.stdout.write(`wrote ${join(root, 'openapi.yaml')} and ${join(root, 'mcp-tools.json')}\n`);
  return 0;
}
