// The dashboard's pure parts, without a browser: the version diff, the JSON parser that maps a
// field to its line, the schema check against the published routing-config schema, the report to
// chart transform, the overview's time window, a budget's burn-down and how money reads.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { usd } from '../../ui/src/format.ts';
import { burnDown } from '../../ui/src/lib/burndown.ts';
import { diffLines, diffStats } from '../../ui/src/lib/diff.ts';
import { JsonSyntaxError, lineOf, parseWithPositions } from '../../ui/src/lib/json-positions.ts';
import { resolveWindow } from '../../ui/src/lib/range.ts';
import { type JsonSchema, validate } from '../../ui/src/lib/schema.ts';
import { bucketSeconds, groupTotals, metricLines } from '../../ui/src/lib/series.ts';
import type { ReportPoint } from '../../ui/src/types.ts';
import { REPO } from './helpers/build.ts';

describe('diffLines', () => {
  test('keeps common lines and marks removals before additions', () => {
    const out = diffLines('a\nb\nc\nd', 'a\nB\nc\nd\ne');
    assert.deepEqual(
      out.map((l) => `${l.op === 'same' ? ' ' : l.op === 'add' ? '+' : '-'}${l.text}`),
      [' a', '-b', '+B', ' c', ' d', '+e'],
    );
    assert.deepEqual(diffStats(out), { added: 2, removed: 1 });
    assert.deepEqual(
      out.map((l) => [l.a, l.b]),
      [
        [1, 1],
        [2, null],
        [null, 2],
        [3, 3],
        [4, 4],
        [null, 5],
      ],
    );
  });

  test('identical texts have no changes', () => {
    assert.deepEqual(diffStats(diffLines('x\ny', 'x\ny')), { added: 0, removed: 0 });
  });
});

describe('parseWithPositions', () => {
  const text =
    '{\n  "name": "Main",\n  "config": {\n    "attempts": [\n      {"model": "a"},\n      {"modelx": 1}\n    ]\n  }\n}';

  test('parses like JSON.parse and maps fields to lines', () => {
    const parsed = parseWithPositions(text);
    assert.deepEqual(parsed.value, JSON.parse(text));
    assert.equal(lineOf(parsed, 'name'), 2);
    assert.equal(lineOf(parsed, 'config.attempts[1]'), 6);
    // A field the document lacks points at its closest parent.
    assert.equal(lineOf(parsed, 'config.attempts[1].model'), 6);
    assert.equal(lineOf(parsed, 'body.config'), 3);
  });

  test('syntax errors carry their line and column', () => {
    assert.throws(
      () => parseWithPositions('{\n  "a": 1,\n  "b": tru\n}'),
      (err: unknown) => err instanceof JsonSyntaxError && err.line === 3,
    );
    assert.throws(() => parseWithPositions('{"a": 1} x'), JsonSyntaxError);
    assert.deepEqual(parseWithPositions('"\\u00e9\\n"').value, 'é\n');
  });
});

describe('validate against the published routing-config schema', () => {
  const doc = parse(readFileSync(`${REPO}openapi.yaml`, 'utf8'));
  const create = doc.paths['/manage/v1/routing-configs'].post.requestBody.content['application/json']
    .schema as JsonSchema;

  test('a README example passes', () => {
    assert.deepEqual(
      validate(create, { name: 'Single', strategy: 'single', config: { model: 'openai/gpt-4o-mini' } }),
      [],
    );
  });

  test('unknown fields, wrong types and empty names are named by path', () => {
    const errors = validate(create, { name: '', strategy: 3, config: [], extra: true });
    const paths = errors.map((e) => e.path).sort();
    assert.deepEqual(paths, ['config', 'extra', 'name', 'strategy']);
    assert.match(errors.find((e) => e.path === 'extra')?.message ?? '', /Unknown field/);
  });
});

const point = (bucket: string, group: string | null, requests: number, p95: number | null = null): ReportPoint => ({
  bucket,
  group,
  requests,
  cost_usd: requests / 100,
  input_tokens: 0,
  output_tokens: 0,
  errors: 0,
  p50_latency_ms: null,
  p95_latency_ms: p95,
  p99_latency_ms: null,
});

describe('report series to chart lines', () => {
  const h0 = '2025-01-01T00:00:00.000Z';
  const h1 = '2025-01-01T01:00:00.000Z';

  test('grouped: busiest groups as lines, the rest summed into "other groups"', () => {
    const series = [point(h0, 'a', 5), point(h0, 'b', 1), point(h1, 'a', 2), point(h1, 'c', 3)];
    const xs = bucketSeconds(series);
    assert.deepEqual(xs, [Date.parse(h0) / 1000, Date.parse(h1) / 1000]);
    const lines = metricLines(series, xs, [{ metric: 'requests', label: 'requests' }], true, 2);
    assert.deepEqual(
      lines.map((l) => [l.label, l.values]),
      [
        ['a', [5, 2]],
        ['c', [0, 3]],
        ['other groups', [1, 0]],
      ],
    );
    assert.deepEqual(
      groupTotals(series).map((g) => [g.group, g.requests]),
      [
        ['a', 7],
        ['c', 3],
        ['b', 1],
      ],
    );
  });

  test('latency has gaps where a bucket saw no call, counts have zeros', () => {
    const series = [point(h0, null, 1, 40), point(h1, null, 0, null)];
    const xs = bucketSeconds(series);
    const [p95] = metricLines(series, xs, [{ metric: 'p95_latency_ms', label: 'p95' }], false);
    assert.deepEqual(p95?.values, [40, null]);
  });
});

describe('resolveWindow', () => {
  const now = Date.parse('2025-03-10T12:34:56Z');

  test('presets end at the next minute, pick hour or day buckets by span', () => {
    const w = resolveWindow(new URLSearchParams('range=7d'), now);
    assert.equal(w.end, '2025-03-10T12:35:00.000Z');
    assert.equal(w.start, '2025-03-03T12:35:00.000Z');
    assert.equal(w.granularity, 'day');
    assert.equal(resolveWindow(new URLSearchParams(), now).granularity, 'hour');
    assert.equal(resolveWindow(new URLSearchParams('range=7d&granularity=hour'), now).granularity, 'hour');
  });

  test('a custom range must start before it ends', () => {
    const ok = resolveWindow(
      new URLSearchParams('range=custom&start=2025-03-01T00:00:00Z&end=2025-03-02T00:00:00Z'),
      now,
    );
    assert.equal(ok.start, '2025-03-01T00:00:00.000Z');
    assert.equal(ok.problem, undefined);
    const bad = resolveWindow(
      new URLSearchParams('range=custom&start=2025-03-05T00:00:00Z&end=2025-03-02T00:00:00Z'),
      now,
    );
    assert.ok(bad.problem);
  });
});

describe('burnDown', () => {
  const status = {
    spent_usd: 3,
    reserved_usd: 0,
    remaining_usd: 7,
    period_start: '2025-03-01T00:00:00.000Z',
    period_end: '2025-03-11T00:00:00.000Z',
    exceeded: false,
    forecast_usd: 6,
  };
  const now = Date.parse('2025-03-06T00:00:00Z');

  test('from the report: cumulative spend, then the forecast to the period end, and the limit', () => {
    const report = [point('2025-03-01T00:00:00.000Z', null, 100), point('2025-03-03T00:00:00.000Z', null, 200)];
    const b = burnDown(status, 10, now, report);
    const sec = (iso: string) => Date.parse(iso) / 1000;
    assert.deepEqual(b.xs, [
      sec('2025-03-01T00:00:00Z'),
      sec('2025-03-03T00:00:00Z'),
      sec('2025-03-06T00:00:00Z'),
      sec('2025-03-11T00:00:00Z'),
    ]);
    assert.deepEqual(b.spend[0]?.values, [1, 3, 3, null]);
    assert.deepEqual(b.guides.find((g) => g.label === 'Forecast')?.values, [null, null, 3, 6]);
    assert.deepEqual(b.guides.find((g) => g.label === 'Limit')?.values, [10, null, null, 10]);
  });

  test('without a report: a straight line from the period start to what is spent now', () => {
    const b = burnDown({ ...status, period_end: null }, 10, now, null);
    assert.deepEqual(b.spend[0]?.values, [0, 3]);
    assert.equal(
      b.guides.some((g) => g.label === 'Forecast'),
      false,
    );
  });
});

describe('usd', () => {
  test('a few millionths keep three significant digits and never turn into exponent form', () => {
    assert.equal(usd(0.000012), '$0.000012');
    assert.equal(usd(0.0000123456), '$0.0000123');
    assert.equal(usd(1.2e-7), '$0.00000012');
    assert.equal(usd(2e-12), '$0.000000000002');
    assert.equal(usd(0), '$0');
  });

  test('cents read as cents, dollars with two decimals', () => {
    assert.equal(usd(0.5), '$0.50');
    assert.equal(usd(0.1234), '$0.1234');
    assert.equal(usd(4.304), '$4.30');
    assert.equal(usd(-0.3), '-$0.30');
  });
});
