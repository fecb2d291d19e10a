// Scores the PII detectors on the labelled corpus in test/guardrails/corpus/. A "+" line marks each
// expected span with ⟦ ⟧; a "-" line should yield nothing. A detected span counts as a true positive
// only when it covers exactly a marked span. Run directly to print the README table:
//   node --import tsx test/guardrails/corpus-score.ts
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveOverlaps } from '../../src/guardrails/matcher.ts';
import { findPii } from '../../src/guardrails/pii.ts';
import { PII_ENTITIES, type PiiEntity } from '../../src/guardrails/policy.ts';

export const CORPUS_DIR = join(import.meta.dirname, 'corpus');

export interface CorpusLine {
  positive: boolean;
  text: string;
  spans: Array<[number, number]>;
  line: number;
}

export function readCorpus(entity: PiiEntity): CorpusLine[] {
  const raw = readFileSync(join(CORPUS_DIR, `${entity}.txt`), 'utf8').split('\n');
  const out: CorpusLine[] = [];
  raw.forEach((l, i) => {
    if (!l.startsWith('+ ') && !l.startsWith('- ')) return;
    const body = l.slice(2).replace(/\\n/g, '\n');
    const spans: Array<[number, number]> = [];
    let text = '';
    for (let at = 0; at < body.length; ) {
      const open = body.indexOf('⟦', at);
      if (open < 0) {
        text += body.slice(at);
        break;
      }
      const close = body.indexOf('⟧', open);
      text += body.slice(at, open);
      const start = text.length;
      text += body.slice(open + 1, close);
      spans.push([start, text.length]);
      at = close + 1;
    }
    out.push({ positive: l.startsWith('+'), text, spans, line: i + 1 });
  });
  return out;
}

export interface EntityScore {
  entity: PiiEntity;
  lines: number;
  positives: number;
  lookAlikes: number;
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  /** Corpus lines where the detector disagreed, for test failure messages. */
  misses: string[];
}

export function scoreEntity(entity: PiiEntity): EntityScore {
  const lines = readCorpus(entity);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const misses: string[] = [];
  for (const l of lines) {
    const found = resolveOverlaps(findPii(l.text, [entity])).map((f) => `${f.start}:${f.end}`);
    const want = new Set(l.spans.map(([s, e]) => `${s}:${e}`));
    const hit = found.filter((f) => want.has(f)).length;
    tp += hit;
    fp += found.length - hit;
    fn += want.size - hit;
    if (hit !== want.size || found.length !== hit)
      misses.push(`${entity}.txt:${l.line} found [${found}] want [${[...want]}]`);
  }
  const positives = lines.filter((l) => l.positive).length;
  return {
    entity,
    lines: lines.length,
    positives,
    lookAlikes: lines.length - positives,
    tp,
    fp,
    fn,
    precision: tp + fp === 0 ? 1 : tp / (tp + fp),
    recall: tp + fn === 0 ? 1 : tp / (tp + fn),
    misses,
  };
}

export function scoreAll(): EntityScore[] {
  return PII_ENTITIES.map(scoreEntity);
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The markdown table the README carries under "Detectors". */
export function renderTable(scores: readonly EntityScore[]): string {
  const rows = scores.map(
    (s) =>
      `| \`${s.entity}\` | ${s.positives} | ${s.lookAlikes} | ${s.tp} | ${s.fp} | ${s.fn} | ${pct(s.precision)} | ${pct(s.recall)} |`,
  );
  return [
    '| Entity | Positive lines | Look-alike lines | True pos. | False pos. | Missed | Precision | Recall |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const scores = scoreAll();
  console.log(renderTable(scores));
  for (const s of scores) for (const m of s.misses) console.log(m);
}
