// Enforces the src/ layer table (see LAYER_TABLE in helpers/import-graph.ts) so dependency direction stays
// a reviewed decision instead of an accident; the fixture tests prove the checker can actually fail.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  checkCycles,
  checkLayers,
  checkPackages,
  checkProviderInternals,
  collectGraph,
  folderEdges,
  formatEdge,
  formatFolderGraph,
  importsInto,
  LAYER_TABLE,
  type LayerSpec,
  PACKAGE_RULES,
  type PackageRule,
  PROVIDERS_PUBLIC,
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

// Debts this rule found in code other work owns, each with the way out. The test fails when one is
// paid off as well as when a new one appears, so the list can only shrink.
const KNOWN_PACKAGE_DEBTS: ReadonlyArray<{ readonly violation: RegExp; readonly why: string }> = [
  {
    violation: /^package: src\/logs\/sqlite-log-worker\.ts:\d+ imports 'better-sqlite3'/,
    why: 'the request-log writer thread opens SQLite itself; to move under store/',
  },
  {
    violation: /^package: src\/manage\/validation\.ts:\d+ imports 'fastify'/,
    why: 'the schema validators register on the fastify instance; to move under http/',
  },
];

test('packages stay behind their boundaries: undici, fastify, the SQL drivers, ioredis, OpenTelemetry', (t) => {
  const violations = checkPackages(collectGraph(join(repo, 'src'), repo));
  for (const debt of KNOWN_PACKAGE_DEBTS) t.diagnostic(`known debt: ${debt.violation.source} (${debt.why})`);
  const unexpected = violations.filter((v) => !KNOWN_PACKAGE_DEBTS.some((d) => d.violation.test(v)));
  assert.deepEqual(unexpected, [], `${unexpected.length} package violation(s):\n${bulleted(unexpected)}`);
  const paid = KNOWN_PACKAGE_DEBTS.filter((d) => !violations.some((v) => d.violation.test(v)));
  assert.deepEqual(
    paid.map((d) => d.violation.source),
    [],
    'no longer violated: remove from KNOWN_PACKAGE_DEBTS',
  );
});

test('nothing outside providers/ imports a vendor folder or the transport internals', () => {
  const violations = checkProviderInternals(collectGraph(join(repo, 'src'), repo));
  assert.deepEqual(violations, [], `${violations.length} violation(s):\n${bulleted(violations)}`);
});

// Each tree under test/fixtures/architecture/ holds allowed imports next to planted ones, so a rule that
// stopped matching (or matched too much) fails here rather than passing silently on src/.
const fixtures = join(repo, 'test', 'fixtures', 'architecture');
const fixtureGraph = (name: string) => collectGraph(join(fixtures, name, 'src'));
const packageHits = (violations: string[]): string[] =>
  violations.map((v) => {
    const m = /^package: (\S+):\d+ imports '([^']+)'/.exec(v);
    assert.ok(m, `unexpected message shape: ${v}`);
    return `${m[1]} ${m[2]}`;
  });

test('fixture: undici outside the transport is caught, in a vendor folder too', () => {
  assert.deepEqual(packageHits(checkPackages(fixtureGraph('undici'))), [
    'src/providers/openai/files-api.ts undici',
    'src/webhooks/sender.ts undici',
  ]);
});

test('fixture: fastify outside http/, the composition root and the CLI is caught', () => {
  assert.deepEqual(packageHits(checkPackages(fixtureGraph('fastify'))), ['src/manage/validation.ts fastify']);
});

test('fixture: kysely, pg and better-sqlite3 outside store/ are caught, dynamic imports too', () => {
  assert.deepEqual(packageHits(checkPackages(fixtureGraph('sql'))), [
    'src/jobs/queue.ts pg',
    'src/logs/worker.ts better-sqlite3',
    'src/routing/stats.ts kysely',
  ]);
});

test('fixture: ioredis outside cluster/redis/ is caught; node builtins are not packages', () => {
  const graph = fixtureGraph('ioredis');
  assert.deepEqual(packageHits(checkPackages(graph)), ['src/cluster/local/bus.ts ioredis']);
  assert.deepEqual(graph.packages.map((p) => p.pkg).sort(), ['ioredis', 'ioredis']);
});

test('fixture: @opentelemetry/* outside telemetry/ is caught, dynamic imports too', () => {
  assert.deepEqual(packageHits(checkPackages(fixtureGraph('opentelemetry'))), [
    'src/metrics/export.ts @opentelemetry/sdk-metrics',
    'src/pipeline/chat.ts @opentelemetry/api',
  ]);
});

test('fixture: a vendor folder, providers/shared or the transport internals imported from outside are caught', () => {
  const graph = fixtureGraph('provider-internals');
  const hits = checkProviderInternals(graph).map((v) =>
    /^providers internals: (\S+) imports '([^']+)'/.exec(v)?.slice(1),
  );
  assert.deepEqual(hits, [
    ['src/files/service.ts:3', '../providers/openai/files-api.ts'],
    ['src/media/service.ts:3', '../providers/dispatch.ts'],
    ['src/media/service.ts:4', '../providers/shared/ids.ts'],
  ]);
  assert.deepEqual(checkPackages(graph), []);
});

const codeList = (items: readonly string[]): string => items.map((i) => `\`${i}\``).join(', ');

/** The layer table as docs/architecture.md shows it. */
function renderLayerTable(table: readonly LayerSpec[] = LAYER_TABLE): string[] {
  return [
    '| layer | name | units under `src/` | siblings may import each other | may import outside `src/` |',
    '| --- | --- | --- | --- | --- |',
    ...table.map(
      (l) =>
        `| ${l.layer} | ${l.name} | ${codeList(l.units)} | ${l.shared ? 'yes' : 'no'} | ${l.outsideAllowed ? 'yes' : 'no'} |`,
    ),
  ];
}

/** The package rules and the providers' public entries, as docs/architecture.md shows them. */
function renderBoundaries(
  rules: readonly PackageRule[] = PACKAGE_RULES,
  publicEntries: readonly string[] = PROVIDERS_PUBLIC,
): string[] {
  return [
    '| package | only under `src/` | why |',
    '| --- | --- | --- |',
    ...rules.map((r) => `| ${codeList(r.packages)} | ${codeList(r.allowed)} | ${r.why} |`),
    '',
    `Outside \`providers/\`, an import into it may land only on ${codeList(publicEntries.map((p) => `providers/${p}`))}.`,
  ];
}

/** The lines between `<!-- name:start -->` and `<!-- name:end -->`; undefined without both markers. */
function markedBlock(text: string, name: string): string[] | undefined {
  const lines = text.split('\n');
  const start = lines.indexOf(`<!-- ${name}:start -->`);
  const end = lines.indexOf(`<!-- ${name}:end -->`);
  return start < 0 || end < start ? undefined : lines.slice(start + 1, end);
}

/** Lines the doc lacks and lines it has that the table does not give, for a message that says where. */
function drift(shown: readonly string[] | undefined, expected: readonly string[]): string[] {
  if (shown === undefined) return ['the start and end markers are missing'];
  return [
    ...expected.filter((l) => !shown.includes(l)).map((l) => `missing: ${l}`),
    ...shown.filter((l) => !expected.includes(l)).map((l) => `stale:   ${l}`),
  ];
}

test('docs/architecture.md shows the layer table and the boundaries this test enforces', () => {
  const doc = readFileSync(join(repo, 'docs', 'architecture.md'), 'utf8');
  const layers = drift(markedBlock(doc, 'layer-table'), renderLayerTable());
  assert.deepEqual(layers, [], `docs/architecture.md's layer table differs from LAYER_TABLE:\n${bulleted(layers)}`);
  const boundaries = drift(markedBlock(doc, 'boundaries'), renderBoundaries());
  assert.deepEqual(boundaries, [], `docs/architecture.md's boundaries differ from the rules:\n${bulleted(boundaries)}`);
});

test('fixture: a doc whose layer table drifted from LAYER_TABLE is caught', () => {
  const doc = readFileSync(join(fixtures, 'docs-drift', 'architecture.md'), 'utf8');
  const found = drift(markedBlock(doc, 'layer-table'), renderLayerTable());
  assert.ok(
    found.some((l) => l.startsWith('missing: | 3.5 | features |') && l.includes('`media`')),
    bulleted(found),
  );
  assert.ok(
    found.some((l) => l.startsWith('stale:   | 3.5 | features |')),
    bulleted(found),
  );
  assert.deepEqual(drift(markedBlock('no markers here', 'layer-table'), renderLayerTable()), [
    'the start and end markers are missing',
  ]);
});
