// Pure import-graph analysis behind test/architecture.test.ts. Kept free of node:test so the same
// functions can be pointed at throwaway fixture trees to prove the checker itself catches violations.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface LayerSpec {
  readonly layer: number;
  readonly name: string;
  /** Folder names directly under src/, or top-level file names without `.ts` (config.ts -> "config"). */
  readonly units: readonly string[];
  /** Units of a shared layer may import each other freely; every other layer is strictly sibling-blind. */
  readonly shared?: boolean;
  /** Only the composition root may wire in code from outside src/ (tools, scripts). */
  readonly outsideAllowed?: boolean;
}

// The single source of truth for the layering; README-level docs should point here rather than copy it.
export const LAYER_TABLE: readonly LayerSpec[] = [
  { layer: 0, name: 'core', units: ['ir', 'errors', 'util', 'tokens', 'crypto', 'ports', 'config'], shared: true },
  { layer: 1, name: 'adapters', units: ['providers', 'families', 'store', 'cluster'] },
  { layer: 2, name: 'coordination', units: ['live', 'routing', 'jobs'] },
  { layer: 3, name: 'pipeline', units: ['pipeline'] },
  {
    layer: 3.5,
    name: 'features',
    units: [
      'logs',
      'metrics',
      'cache',
      'limits',
      'webhooks',
      'files',
      'batches',
      'responses',
      'media',
      'guardrails',
      'telemetry',
      'mcp-gateway',
    ],
  },
  { layer: 4, name: 'manage', units: ['manage'] },
  // Configuration as code drives the management operations, so it sits just above them.
  { layer: 4.5, name: 'config-file', units: ['config-file'] },
  { layer: 5, name: 'http', units: ['http'] },
  // The composition root and the CLI wire everything together, each other included.
  { layer: 6, name: 'root', units: ['app', 'services', 'batch-wiring', 'cli'], outsideAllowed: true, shared: true },
];

/** Paths are posix and relative to `base` (normally the repo root), so messages read `src/ir/types.ts`. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  readonly specifier: string;
  readonly line: number;
  /** False when the specifier points at nothing on disk — usually a file moved without its importers. */
  readonly resolved: boolean;
}

/** An import of an installed package (node: builtins are not recorded). */
export interface PackageImport {
  readonly from: string;
  /** The package name without any subpath: `@scope/name` or `name`. */
  readonly pkg: string;
  readonly specifier: string;
  readonly line: number;
}

export interface ImportGraph {
  readonly base: string;
  /** Scanned directory relative to base, e.g. "src". */
  readonly root: string;
  readonly files: readonly string[];
  readonly edges: readonly ImportEdge[];
  readonly packages: readonly PackageImport[];
}

export interface UnitEdge {
  readonly from: string;
  readonly to: string;
  readonly count: number;
}

const toPosix = (p: string): string => p.split(sep).join('/');

function listTsFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) listTsFiles(p, out);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

// Mirrors what NodeNext + allowImportingTsExtensions accept, plus `.js` aliases and index files, so a
// specifier style change elsewhere in the codebase does not silently drop edges.
function resolveSpecifier(fromFile: string, specifier: string): { path: string; exists: boolean } {
  const target = resolve(dirname(fromFile), specifier);
  const candidates = [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, join(target, 'index.ts')];
  for (const c of candidates) {
    if (existsSync(c) && statSync(c).isFile()) return { path: c, exists: true };
  }
  return { path: target, exists: false };
}

export function collectGraph(rootDir: string, baseDir: string = dirname(resolve(rootDir))): ImportGraph {
  const base = resolve(baseDir);
  const absFiles = listTsFiles(resolve(rootDir));
  const edges: ImportEdge[] = [];
  const packages: PackageImport[] = [];
  for (const file of absFiles) {
    const source = readFileSync(file, 'utf8');
    // preProcessFile uses the real scanner, so comments, strings and template literals cannot fake an import,
    // and dynamic import() and `export ... from` come for free.
    for (const ref of ts.preProcessFile(source, true, true).importedFiles) {
      const line = source.slice(0, ref.pos).split('\n').length;
      if (!ref.fileName.startsWith('.')) {
        const pkg = packageName(ref.fileName);
        if (pkg !== undefined)
          packages.push({ from: toPosix(relative(base, file)), pkg, specifier: ref.fileName, line });
        continue;
      }
      const target = resolveSpecifier(file, ref.fileName);
      edges.push({
        from: toPosix(relative(base, file)),
        to: toPosix(relative(base, target.path)),
        specifier: ref.fileName,
        line,
        resolved: target.exists,
      });
    }
  }
  return {
    base,
    root: toPosix(relative(base, resolve(rootDir))),
    files: absFiles.map((f) => toPosix(relative(base, f))),
    edges,
    packages,
  };
}

/** `undici` for `undici`, `@a/b` for `@a/b/c`; undefined for a node builtin. */
export function packageName(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0])) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Unit of a path: first folder under root, or a top-level file minus `.ts`; outside root -> "../<segment>". */
export function unitOf(graph: ImportGraph, path: string): string {
  const prefix = graph.root === '' ? '' : `${graph.root}/`;
  if (!path.startsWith(prefix)) return `../${path.split('/')[0]}`;
  const segments = path.slice(prefix.length).split('/');
  return segments.length === 1 ? segments[0].replace(/\.ts$/, '') : segments[0];
}

const isOutside = (unit: string): boolean => unit.startsWith('../');

export function layerOf(unit: string, table: readonly LayerSpec[] = LAYER_TABLE): LayerSpec | undefined {
  return table.find((l) => l.units.includes(unit));
}

export function folderEdges(graph: ImportGraph): UnitEdge[] {
  const counts = new Map<string, UnitEdge>();
  for (const e of graph.edges) {
    const from = unitOf(graph, e.from);
    const to = unitOf(graph, e.to);
    if (from === to) continue;
    const key = `${from}\0${to}`;
    counts.set(key, { from, to, count: (counts.get(key)?.count ?? 0) + 1 });
  }
  return [...counts.values()].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

export function formatFolderGraph(graph: ImportGraph, table: readonly LayerSpec[] = LAYER_TABLE): string[] {
  const tag = (unit: string): string => {
    if (isOutside(unit)) return `${unit} [outside]`;
    return `${unit} [${layerOf(unit, table)?.layer ?? '?'}]`;
  };
  return folderEdges(graph).map((e) => `${tag(e.from)} -> ${tag(e.to)} (${e.count})`);
}

export const formatEdge = (e: ImportEdge): string => `${e.from}:${e.line} imports '${e.specifier}'`;

export function checkLayers(graph: ImportGraph, table: readonly LayerSpec[] = LAYER_TABLE): string[] {
  const violations: string[] = [];
  const unassigned = new Map<string, string>();
  for (const file of graph.files) {
    const unit = unitOf(graph, file);
    if (layerOf(unit, table)) continue;
    const rest = file.slice(graph.root.length + 1);
    unassigned.set(unit, `${graph.root}/${rest.includes('/') ? unit : rest}`);
  }
  for (const shown of unassigned.values()) violations.push(`unassigned: ${shown} — add it to the layer table`);

  // Grouped per unit pair so one misplaced folder yields one readable line instead of dozens.
  const grouped = new Map<string, { reason: string; edges: ImportEdge[] }>();
  const flag = (key: string, reason: string, e: ImportEdge): void => {
    const entry = grouped.get(key) ?? { reason, edges: [] };
    entry.edges.push(e);
    grouped.set(key, entry);
  };
  for (const e of graph.edges) {
    const fromUnit = unitOf(graph, e.from);
    const toUnit = unitOf(graph, e.to);
    if (!e.resolved) {
      violations.push(`unresolved: ${formatEdge(e)} — no such file`);
      continue;
    }
    const from = layerOf(fromUnit, table);
    if (fromUnit === toUnit || !from) continue;
    if (isOutside(toUnit)) {
      if (!from.outsideAllowed) {
        flag(`out ${fromUnit}`, `outside ${graph.root}: ${fromUnit} [${from.layer}] reaches ${toUnit}/`, e);
      }
      continue;
    }
    const to = layerOf(toUnit, table);
    if (!to || to.layer < from.layer || (to === from && from.shared)) continue;
    const kind = to.layer === from.layer ? 'same-layer' : 'upward';
    flag(`${fromUnit} ${toUnit}`, `${kind}: ${fromUnit} [${from.layer}] -> ${toUnit} [${to.layer}]`, e);
  }
  for (const { reason, edges } of grouped.values()) {
    violations.push(`${reason} via ${edges.map(formatEdge).join('; ')}`);
  }
  return violations;
}

export interface Cycle {
  /** One concrete loop, first node repeated at the end. */
  readonly path: readonly string[];
  /** Every node of the strongly connected component; breaking only `path` may leave a smaller loop behind. */
  readonly members: readonly string[];
}

/** Tarjan SCC; one cycle per strongly connected component. */
export function findCycles(edges: Iterable<readonly [string, string]>): Cycle[] {
  const adj = new Map<string, Set<string>>();
  for (const [a, b] of edges) {
    if (!adj.has(a)) adj.set(a, new Set());
    if (!adj.has(b)) adj.set(b, new Set());
    adj.get(a)!.add(b);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of adj.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || adj.get(v)!.has(v)) components.push(scc);
  };
  for (const v of [...adj.keys()].sort()) if (!index.has(v)) visit(v);
  return components
    .map((scc) => ({ path: shortestCycle(adj, new Set(scc)), members: scc.sort() }))
    .sort((a, b) => a.path[0].localeCompare(b.path[0]));
}

// BFS inside the component gives the shortest loop, which is the easiest one to reason about when fixing.
function shortestCycle(adj: Map<string, Set<string>>, scc: Set<string>): string[] {
  const start = [...scc].sort()[0];
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of [...adj.get(v)!].sort()) {
      if (!scc.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let cur = v; cur !== start; cur = parent.get(cur)!) path.push(cur);
        return [start, ...path.slice(1).reverse(), start];
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/** Human-readable cycle report for both the unit graph and the file graph. */
export function checkCycles(graph: ImportGraph): string[] {
  const unitCycles = findCycles(folderEdges(graph).map((e) => [e.from, e.to] as const));
  const fileCycles = findCycles(graph.edges.filter((e) => e.resolved).map((e) => [e.from, e.to] as const));
  const extra = (c: Cycle, list: boolean): string => {
    if (c.members.length <= c.path.length - 1) return '';
    return ` (component of ${c.members.length}${list ? `: ${c.members.join(', ')}` : ''})`;
  };
  return [
    ...unitCycles.map((c) => `unit cycle: ${c.path.join(' -> ')}${extra(c, true)}`),
    ...fileCycles.map((c) => `file cycle: ${c.path.join(' -> ')}${extra(c, false)}`),
  ];
}

/** Edges from the graph that land inside `dir` (relative to the graph base), e.g. tools importing src. */
export function importsInto(graph: ImportGraph, dir: string): ImportEdge[] {
  return graph.edges.filter((e) => e.to === dir || e.to.startsWith(`${dir}/`));
}

/** Who may import a package: paths relative to the scanned root; a trailing slash means a whole folder. */
export interface PackageRule {
  /** Package names; `@scope/*` stands for every package of the scope. */
  readonly packages: readonly string[];
  readonly allowed: readonly string[];
  /** Why the boundary is there; shown in failures and in docs/architecture.md. */
  readonly why: string;
}

// The composition root (app.ts) builds the fastify server and the CLI starts and stops it, so both may
// name its types; everything else that serves HTTP lives under http/.
export const PACKAGE_RULES: readonly PackageRule[] = [
  {
    packages: ['undici'],
    allowed: ['providers/http.ts', 'providers/dispatch.ts', 'providers/pools.ts'],
    why: 'one transport: pools, deadlines and transport errors are decided in one place',
  },
  {
    packages: ['fastify'],
    allowed: ['http/', 'app.ts', 'cli/'],
    why: 'serving HTTP is the outermost layer; the composition root builds the server, the CLI runs it',
  },
  {
    packages: ['kysely', 'pg', 'better-sqlite3'],
    allowed: ['store/'],
    why: 'the store holds the only SQL',
  },
  { packages: ['ioredis'], allowed: ['cluster/redis/'], why: 'Redis sits behind the cluster ports' },
  {
    packages: ['@opentelemetry/*'],
    allowed: ['telemetry/'],
    why: 'tracing is loaded only when an OTLP endpoint is set: the telemetry feature imports the SDK on demand',
  },
];

/**
 * What code outside providers/ may import from it: the registry, the types and capability interfaces,
 * the transport, the catalog. Vendor folders, providers/shared/ and the transport's internals are not.
 */
export const PROVIDERS_PUBLIC: readonly string[] = [
  'registry.ts',
  'types.ts',
  'capabilities.ts',
  'http.ts',
  'attempt-failure.ts',
  'verify.ts',
  'catalog/',
];

const within = (path: string, entries: readonly string[]): boolean =>
  entries.some((e) => (e.endsWith('/') ? path.startsWith(e) : path === e));

/** A path relative to the scanned root, or undefined when it lies outside it. */
function inRoot(graph: ImportGraph, path: string): string | undefined {
  const prefix = graph.root === '' ? '' : `${graph.root}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : undefined;
}

const namesPackage = (entry: string, pkg: string): boolean =>
  entry.endsWith('/*') ? pkg.startsWith(entry.slice(0, -1)) : entry === pkg;

export function checkPackages(graph: ImportGraph, rules: readonly PackageRule[] = PACKAGE_RULES): string[] {
  const violations: string[] = [];
  for (const imp of graph.packages) {
    const rule = rules.find((r) => r.packages.some((p) => namesPackage(p, imp.pkg)));
    const at = inRoot(graph, imp.from);
    if (rule === undefined || at === undefined || within(at, rule.allowed)) continue;
    violations.push(
      `package: ${imp.from}:${imp.line} imports '${imp.specifier}'; only ${rule.allowed.join(', ')} may (${rule.why})`,
    );
  }
  return violations;
}

export function checkProviderInternals(
  graph: ImportGraph,
  publicEntries: readonly string[] = PROVIDERS_PUBLIC,
): string[] {
  const violations: string[] = [];
  for (const e of graph.edges) {
    const from = inRoot(graph, e.from);
    const to = inRoot(graph, e.to);
    if (from === undefined || to === undefined || from.startsWith('providers/') || !to.startsWith('providers/'))
      continue;
    if (within(to.slice('providers/'.length), publicEntries)) continue;
    violations.push(
      `providers internals: ${formatEdge(e)}; outside providers/ import only ${publicEntries.map((p) => `providers/${p}`).join(', ')}`,
    );
  }
  return violations;
}
