// Drift test: the dashboard's committed api-types.ts equals a fresh generation from openapi.yaml.
// openapi.yaml has its own drift test against the operation list (test/foundation/mcp-openapi), so
// together a change to a management answer cannot reach the dashboard untyped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { OUT_PATH, SPEC_PATH, uiApiTypes } from '../../scripts/gen-ui-types.ts';

test('ui/src/api-types.ts equals a fresh generation from openapi.yaml', async () => {
  const fresh = await uiApiTypes(readFileSync(SPEC_PATH, 'utf8'));
  assert.ok(fresh.startsWith('// GENERATED'), 'the generated file says so in its first line');
  assert.ok(fresh.includes('list_projects: {'), 'the management operations are in it');
  assert.equal(
    readFileSync(OUT_PATH, 'utf8'),
    fresh,
    'ui/src/api-types.ts is stale: run `node --import tsx scripts/gen-ui-types.ts` and commit the result',
  );
});

test('the generated types leave the proxy routes out (the dashboard calls only /manage/v1)', async () => {
  const text = readFileSync(OUT_PATH, 'utf8');
  assert.doesNotMatch(text, /'\/(alpha|beta)\/v1\//);
  assert.match(text, /'\/manage\/v1\/projects'/);
});
