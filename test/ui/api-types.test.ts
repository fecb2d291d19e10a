// Drift test: the dashboard's committed api-types.ts equals a fresh generation from openapi.yaml.
// openapi.yaml has its own drift test against the operation list (test/foundation/mcp-openapi), so
// together a change to a management answer cannot reach the dashboard untyped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { OpenAPI3, SchemaObject } from 'openapi-typescript';
import { OUT_PATH, SPEC_PATH, uiApiTypes } from '../../scripts/gen-ui-types.ts';
import { hoistRepeatedSchemas } from '../../scripts/hoist-schemas.ts';

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

test('a body several operations return is one named schema, and each operation refers to it', () => {
  const project: SchemaObject = {
    type: 'object',
    properties: {
      object: { type: 'string', const: 'project' },
      id: { type: 'string', description: 'the id of the project, as every other answer names it' },
      name: { type: 'string', description: 'what the project is called on every page that shows it' },
      settings: { type: 'object', properties: { cache: { type: 'boolean' }, retries: { type: 'integer' } } },
    },
  };
  const answer = (schema: SchemaObject) => ({
    responses: { 200: { description: 'ok', content: { 'application/json': { schema } } } },
  });
  const spec: OpenAPI3 = {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/manage/v1/projects/{id}': { get: { operationId: 'get_project', ...answer(project) } },
      '/manage/v1/projects': {
        get: {
          operationId: 'list_projects',
          ...answer({ type: 'object', properties: { data: { type: 'array', items: project } } }),
        },
      },
    },
  };
  const doc = hoistRepeatedSchemas(spec);
  assert.deepEqual(Object.keys(doc.components?.schemas ?? {}), ['Project']);
  assert.deepEqual(doc.components?.schemas?.Project, project);
  const ref = { $ref: '#/components/schemas/Project' };
  const text = JSON.stringify(doc.paths);
  assert.equal(text.split(JSON.stringify(ref)).length - 1, 2, text);
  assert.ok(!text.includes('every other answer'), 'the body itself is no longer inline');
});
