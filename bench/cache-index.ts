// Semantic cache index at partition scale: builds one PartitionIndex (src/cache/partition-index.ts)
// of N LocalEmbedder vectors of generated prompts through add() (as the cache fills it), then times
// look-ups (embedding and search separately) over a mix of queries, and checks recall@1 against the
// exact FlatIndex scan on a sample. Several --ef values are measured on one build, to tune it; each is a
// ceiling, and a graph under 256 x ef entries searches with fewer, down to --ef-floor (the table says).
//
//   node --import tsx bench/cache-index.ts [--entries 100000] [--dims 256] [--queries 2000]
//     [--recall 1000] [--m 16] [--ef-construction 64] [--ef 32,64,128] [--ef-floor 16] [--exact-below 1000] [--seed 1]
//     [--search-dims 64] [--candidates 8]
import { parseArgs } from 'node:util';
import { FlatIndex, type Neighbour } from '../src/cache/flat-index.ts';
import { LocalEmbedder } from '../src/cache/local-embedder.ts';
import { PARTITION_INDEX_DEFAULTS, PartitionIndex } from '../src/cache/partition-index.ts';
import { seededRandom } from '../test/helpers/random.ts';
import { makePrompter } from './prompts.ts';
import { percentile } from './stats.ts';

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '100000' },
    dims: { type: 'string', default: '256' },
    queries: { type: 'string', default: '2000' },
    recall: { type: 'string', default: '1000' },
    m: { type: 'string', default: String(PARTITION_INDEX_DEFAULTS.m) },
    'ef-construction': { type: 'string', default: String(PARTITION_INDEX_DEFAULTS.efConstruction) },
    ef: { type: 'string', default: String(PARTITION_INDEX_DEFAULTS.ef) },
    'ef-floor': { type: 'string', default: String(PARTITION_INDEX_DEFAULTS.efFloor) },
    'exact-below': { type: 'string', default: String(PARTITION_INDEX_DEFAULTS.exactBelow) },
    seed: { type: 'string', default: '1' },
    'search-dims': { type: 'string', default: String(PARTITION_INDEX_DEFAULTS.searchDimensions) },
    candidates: { type: 'string', default: String(PARTITION_INDEX_DEFAULTS.candidates) },
  },
});

function positive(flag: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} must be a positive integer, got "${raw}"`);
  return n;
}

const entries = positive('entries', values.entries);
const dims = positive('dims', values.dims);
const queryCount = positive('queries', values.queries);
const recallCount = Math.min(positive('recall', values.recall), queryCount);
const efs = values.ef.split(',').map((s) => positive('ef', s.trim()));
const tuning = {
  m: positive('m', values.m),
  efConstruction: positive('ef-construction', values['ef-construction']),
  exactBelow: positive('exact-below', values['exact-below']),
  ef: efs[0],
  efFloor: positive('ef-floor', values['ef-floor']),
  searchDimensions: positive('search-dims', values['search-dims']),
  candidates: positive('candidates', values.candidates),
};

/** The semantic tier's default similarity_threshold (src/cache/settings.ts). */
const HIT_THRESHOLD = 0.95;
const log = (msg: string) => process.stderr.write(`${msg}\n`);
const rssMb = () => process.memoryUsage().rss / 1048576;
const fmtMs = (n: number) => (n < 10 ? n.toFixed(3) : n.toFixed(0));

type QueryKind = 'variant' | 'edited' | 'unrelated';
interface Query {
  kind: QueryKind;
  text: string;
}

/** Case, punctuation and spacing changes: the same normalised text, so the same vector. */
function variant(text: string, next: () => number): string {
  const r = next();
  if (r < 0.25) return text.toLowerCase().replace(/[?.!]$/, '');
  if (r < 0.5) return text.toUpperCase();
  if (r < 0.75) return `  ${text.replaceAll(' ', '  ')}!!`;
  return text.replace(/\b\w/g, (c) => c.toUpperCase()).replace(/[?.]$/, ' ?');
}

/** One word dropped or two letters swapped: close to the original, not identical. */
function edited(text: string, next: () => number): string {
  const ws = text.split(' ');
  const i = Math.floor(next() * ws.length);
  if (next() < 0.5 && ws.length > 3) ws.splice(i, 1);
  else if (ws[i].length > 3) ws[i] = `${ws[i][0]}${ws[i][2]}${ws[i][1]}${ws[i].slice(3)}`;
  return ws.join(' ');
}

function timed<T>(f: () => T): [T, number] {
  const t = performance.now();
  const r = f();
  return [r, performance.now() - t];
}

const summary = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] };
};

const sameAnswer = (got: Neighbour | undefined, want: Neighbour | undefined) =>
  got?.id === want?.id || (got !== undefined && want !== undefined && got.similarity >= want.similarity - 1e-6);

function main(): void {
  const next = seededRandom(positive('seed', values.seed));
  const prompt = makePrompter(next);
  const embedder = new LocalEmbedder(dims);

  log(`generating ${entries} prompts and ${queryCount} queries`);
  const unique = new Set<string>();
  while (unique.size < entries) unique.add(prompt());
  const prompts = [...unique];
  const queries: Query[] = [];
  while (queries.length < queryCount) {
    const r = next();
    const stored = prompts[Math.floor(next() * prompts.length)];
    if (r < 0.4) queries.push({ kind: 'variant', text: variant(stored, next) });
    else if (r < 0.6) queries.push({ kind: 'edited', text: edited(stored, next) });
    else {
      const fresh = prompt();
      if (!unique.has(fresh)) queries.push({ kind: 'unrelated', text: fresh });
    }
  }

  const [vectors, embedAllMs] = timed(() => prompts.map((p) => embedder.embedOne(p)));
  log(`embedded ${entries} prompts in ${(embedAllMs / 1000).toFixed(1)} s`);

  const rssBefore = rssMb();
  const index = new PartitionIndex(dims, tuning);
  const addMs: number[] = [];
  let graphAt = -1;
  const buildStart = performance.now();
  for (let i = 0; i < entries; i++) {
    const t = performance.now();
    index.add(`e${i}`, vectors[i]);
    addMs.push(performance.now() - t);
    if (graphAt < 0 && index.phase === 'graph') graphAt = i + 1;
    if ((i + 1) % 10_000 === 0) log(`  added ${i + 1} (${((performance.now() - buildStart) / 1000).toFixed(1)} s)`);
  }
  const buildMs = performance.now() - buildStart;
  const rssAfter = rssMb();

  const runs = efs.map((ef) => {
    index.ef = ef;
    const used = index.searchEf();
    for (let i = 0; i < Math.min(200, queries.length); i++) index.nearest(embedder.embedOne(queries[i].text));
    const embed: number[] = [];
    const search: number[] = [];
    const total: number[] = [];
    const answers: (Neighbour | undefined)[] = [];
    for (const q of queries) {
      const t0 = performance.now();
      const v = embedder.embedOne(q.text);
      const t1 = performance.now();
      answers.push(index.nearest(v));
      const t2 = performance.now();
      embed.push(t1 - t0);
      search.push(t2 - t1);
      total.push(t2 - t0);
    }
    log(`  ef=${ef} (searching with ${used}): search p99 ${fmtMs(summary(search).p99)} ms`);
    return {
      ef: used === ef ? String(ef) : `${ef} (${used})`,
      embed: summary(embed),
      search: summary(search),
      total: summary(total),
      answers,
    };
  });

  log(`exact answers for ${recallCount} queries (flat scan of ${entries})`);
  const flat = new FlatIndex(dims, entries);
  for (let i = 0; i < entries; i++) flat.add(`e${i}`, vectors[i]);
  const truth: (Neighbour | undefined)[] = [];
  const flatMs: number[] = [];
  for (let i = 0; i < recallCount; i++) {
    const [answer, ms] = timed(() => flat.nearest(embedder.embedOne(queries[i].text)));
    truth.push(answer);
    flatMs.push(ms);
  }

  const kinds: QueryKind[] = ['variant', 'edited', 'unrelated'];
  const recall = (answers: (Neighbour | undefined)[], kind?: QueryKind): string => {
    let hits = 0;
    let n = 0;
    for (let i = 0; i < recallCount; i++) {
      if (kind && queries[i].kind !== kind) continue;
      n++;
      if (sameAnswer(answers[i], truth[i])) hits++;
    }
    return n === 0 ? '-' : (hits / n).toFixed(4);
  };
  // What the cache sees: of the queries with an entry at or above the hit threshold, how many the
  // index also answers at or above it.
  const shouldHit = truth.filter((t) => (t?.similarity ?? 0) >= HIT_THRESHOLD).length;
  const hitRecall = (answers: (Neighbour | undefined)[]): string => {
    let hits = 0;
    for (let i = 0; i < recallCount; i++) {
      if ((truth[i]?.similarity ?? 0) >= HIT_THRESHOLD && (answers[i]?.similarity ?? 0) >= HIT_THRESHOLD) hits++;
    }
    return shouldHit === 0 ? '-' : (hits / shouldHit).toFixed(4);
  };
  const counts = kinds.map((k) => `${queries.slice(0, recallCount).filter((q) => q.kind === k).length} ${k}`);

  const adds = summary(addMs);
  const flatSearch = summary(flatMs);
  const out = [
    `## PartitionIndex: ${entries} x ${dims}, M=${tuning.m}, efConstruction=${tuning.efConstruction}, exactBelow=${tuning.exactBelow}, graph of ${Math.min(dims, tuning.searchDimensions)} dims, ${tuning.candidates} candidates`,
    '',
    `build ${(buildMs / 1000).toFixed(1)} s through add() (embedding excluded: ${(embedAllMs / 1000).toFixed(1)} s); ` +
      `add p50 ${fmtMs(adds.p50)} / p99 ${fmtMs(adds.p99)} / max ${fmtMs(adds.max)} ms; graph complete at entry ${graphAt}`,
    `RSS ${rssBefore.toFixed(0)} -> ${rssAfter.toFixed(0)} MB (+${(rssAfter - rssBefore).toFixed(0)} MB for the index; ` +
      `vectors alone ${((entries * dims * 4) / 1048576).toFixed(0)} MB)`,
    `flat scan (reference): p50 ${fmtMs(flatSearch.p50)} / p99 ${fmtMs(flatSearch.p99)} ms per query`,
    `${queryCount} queries timed; recall@1 vs the flat scan on the first ${recallCount} (${counts.join(', ')}); ` +
      `hits: of the ${shouldHit} with an entry >= ${HIT_THRESHOLD}, share answered >= ${HIT_THRESHOLD}`,
    '',
    '| ef | embed p50 | embed p99 | search p50 | search p99 | search max | total p50 | total p99 | recall | variant | edited | unrelated | hits |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| ${[
          r.ef,
          fmtMs(r.embed.p50),
          fmtMs(r.embed.p99),
          fmtMs(r.search.p50),
          fmtMs(r.search.p99),
          fmtMs(r.search.max),
          fmtMs(r.total.p50),
          fmtMs(r.total.p99),
          recall(r.answers),
          ...kinds.map((k) => recall(r.answers, k)),
          hitRecall(r.answers),
        ].join(' | ')} |`,
    ),
    '',
    'Times in ms.',
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

main();
