// Enforces the src/ layer table (see LAYER_TABLE in helpers/import-graph.ts) so dependency direction stays
// a reviewed decision instead of an accident; the fixture tests prove the checker can actually fail.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  checkCycles,
  checkLayers,
  collectGraph,
  folderEdges,
  formatEdge,
  formatFolderGraph,
  importsInto,
  LAYER_TABLE,
} from './helpers/import-graph.ts';

const repo = fileURLToPath(new URL('..', import.meta.url));
const bulleted = (lines: readonly string[]): string => lines.map((l) => `  - ${l}`).join('\n');

test('src respects the layer table', (t) => {
  const graph = collectGraph(join(repo, 'src'), repo);
  t.diagnostic(`layers: ${LAYER_TABLE.map((l) => `${l.layer}=${l.units.join(',')}`).join(' | ')}`);
  for (const line of formatFolderGraph(graph)) t.diagnostic(line);
  const violations = checkLayers(graph);
  assert.deepEqual(violations, [], `${violations.length} layer violation(s):\n${bulleted(violations)}`);
});

test('no import cycles between folders or files', () => {
  const cycles = checkCycles(collectGraph(join(repo, 'src'), repo));
  assert.deepEqual(cycles, [], `${cycles.length} import cycle(s):\n${bulleted(cycles)}`);
});

test('tools/fake-upstream imports nothing from src', () => {
  // The fake upstream stands in for vendors; sharing gateway code would let both sides drift together unnoticed.
  const graph = collectGraph(join(repo, 'tools', 'fake-upstream'), repo);
  assert.ok(graph.files.length > 0, 'expected to scan tools/fake-upstream');
  const leaks = importsInto(graph, 'src').map(formatEdge);
  assert.deepEqual(leaks, [], `tools/fake-upstream reaches into src:\n${bulleted(leaks)}`);
});

function writeTree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'arch-fixture-'));
  for (const [path, body] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), body);
  }
  return dir;
}

// Exercises every import form the parser must see, so a clean result is not just "parsed nothing".
const cleanTree: Record<string, string> = {
  'src/ir/types.ts': 'export type Id = string;\n',
  'src/config.ts': "import type { Id } from './ir/types.ts';\nexport const id: Id = 'x';\n",
  'src/providers/a.ts': "import type { Id } from '../ir/types.ts';\nexport const a: Id = 'a';\n",
  'src/pipeline/x.ts': [
    'import {',
    '  a,',
    "} from '../providers/a.ts';",
    "export * from '../config.ts';",
    "import '../ir/types.ts';",
    "export const load = () => import('../routing/r.ts');",
    'export const x = a;',
    '',
  ].join('\n'),
  'src/routing/r.ts': "// import '../pipeline/x.ts' is only a comment\nexport const r = 'import(\"../http/h.ts\")';\n",
  'src/pipeline/x.test.ts': "import '../http/h.ts';\n",
  'src/app.ts': "import '../tools/helper.ts';\nimport './pipeline/x.ts';\n",
  'tools/helper.ts': 'export {};\n',
};

test('a clean fixture yields no violations and every import form is seen', () => {
  const dir = writeTree(cleanTree);
  try {
    const graph = collectGraph(join(dir, 'src'));
    assert.deepEqual(checkLayers(graph), []);
    assert.deepEqual(checkCycles(graph), []);
    assert.ok(!graph.files.includes('src/pipeline/x.test.ts'), 'test files are excluded');
    const pipelineTargets = folderEdges(graph)
      .filter((e) => e.from === 'pipeline')
      .map((e) => e.to);
    assert.deepEqual(pipelineTargets, ['config', 'ir', 'providers', 'routing']);
    assert.ok(!folderEdges(graph).some((e) => e.to === 'http'), 'comments and strings are not imports');
    assert.ok(formatFolderGraph(graph).includes('pipeline [3] -> routing [2] (1)'));
    assert.ok(formatFolderGraph(graph).includes('app [6] -> ../tools [outside] (1)'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a planted bad import is caught', () => {
  const dir = writeTree({
    ...cleanTree,
    'src/ir/bad.ts': "export { x } from '../pipeline/x.ts';\n",
    'src/providers/a.ts': "import type { F } from '../families/f.ts';\nexport const a: F = 1;\n",
    'src/families/f.ts': 'export type F = number;\n',
    'src/store/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
    'src/store/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
    'src/store/out.ts': "export * from '../../tools/helper.ts';\n",
    'src/auth/keys.ts': "import '../ir/types.ts';\n",
    'src/routing/r.ts': "export const r = () => import('./missing.ts');\n",
  });
  try {
    const graph = collectGraph(join(dir, 'src'));
    const violations = checkLayers(graph);
    const cycles = checkCycles(graph);
    const expectOne = (list: string[], pattern: RegExp): void =>
      assert.equal(
        list.filter((v) => pattern.test(v)).length,
        1,
        `${pattern} not reported once in:\n${bulleted(list)}`,
      );
    expectOne(violations, /^upward: ir \[0\] -> pipeline \[3\] via src\/ir\/bad\.ts:1 /);
    expectOne(violations, /^same-layer: providers \[1\] -> families \[1\] via src\/providers\/a\.ts:1 /);
    expectOne(violations, /^outside src: store \[1\] reaches \.\.\/tools\//);
    expectOne(violations, /^unassigned: src\/auth — add it to the layer table$/);
    expectOne(violations, /^unresolved: src\/routing\/r\.ts:1 imports '\.\/missing\.ts'/);
    assert.equal(violations.length, 5, bulleted(violations));
    expectOne(cycles, /^file cycle: src\/store\/a\.ts -> src\/store\/b\.ts -> src\/store\/a\.ts$/);
    // ir -> pipeline closes a folder loop (pipeline already depends on core); the shortest path may route via config.
    expectOne(cycles, /^unit cycle: (?=.*\bir\b)(?=.*\bpipeline\b)/);
    assert.equal(cycles.length, 2, bulleted(cycles));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
