import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatCost,
  formatDuration,
  formatPlainProgress,
  formatSummary,
  formatTtyProgress,
  ProgressMeter,
  type ProgressSnapshot,
  progressKey,
} from './batch-progress.ts';

const snap = (over: Partial<ProgressSnapshot> = {}): ProgressSnapshot => ({
  batchId: 'batch_1',
  status: 'in_progress',
  done: 12,
  total: 40,
  failed: 1,
  elapsedMs: 4000,
  rate: 3.2,
  etaMs: 8750,
  ...over,
});

describe('batch run progress', () => {
  it('formats durations from milliseconds to hours', () => {
    assert.equal(formatDuration(850), '850ms');
    assert.equal(formatDuration(12_400), '12.4s');
    assert.equal(formatDuration(185_000), '3m05s');
    assert.equal(formatDuration(7_260_000), '2h01m');
  });

  it('a plain line says done / total, errors, rate and ETA', () => {
    assert.equal(formatPlainProgress(snap()), 'batch_1 in_progress 12/40 done, 1 error, 3.2 req/s, ETA 8.8s');
    assert.equal(
      formatPlainProgress(snap({ status: 'validating', done: 0, total: 0, failed: 0, rate: null, etaMs: null })),
      'batch_1 validating 0/0 done, 0 errors, -- req/s, ETA --',
    );
    assert.equal(formatPlainProgress(snap({ rate: 250.4 })).includes('250 req/s'), true);
    assert.match(formatPlainProgress(snap({ done: 40, etaMs: 0 })), /ETA 0s$/);
    assert.match(formatPlainProgress(snap({ etaMs: 400 })), /ETA <1s$/);
  });

  it('the plain line is printed again only when the counts or the status change', () => {
    assert.equal(progressKey(snap()), progressKey(snap({ rate: 9, etaMs: 1, elapsedMs: 99_000 })));
    assert.notEqual(progressKey(snap()), progressKey(snap({ done: 13 })));
    assert.notEqual(progressKey(snap()), progressKey(snap({ status: 'cancelling' })));
  });

  it('the terminal line has a bar and never reaches the last column', () => {
    const line = formatTtyProgress(snap(), 100);
    assert.match(line, /^\[█+░+\] {2}30% 12\/40 {2}1 error {2}3\.2 req\/s {2}ETA 8\.8s {2}in_progress$/);
    assert.ok(line.length <= 99);
    const filled = (line.match(/█/g) ?? []).length;
    const empty = (line.match(/░/g) ?? []).length;
    assert.equal(filled + empty, 30);
    assert.equal(filled, 9);
    const full = formatTtyProgress(snap({ done: 40, etaMs: 0 }), 100);
    assert.match(full, /^\[█{30}\] 100% 40\/40/);
    // The bar keeps its width as the counts grow; what does not fit is cut.
    const at80 = formatTtyProgress(
      snap({ done: 12345, total: 99999, failed: 1234, rate: 999.9, etaMs: 3_000_000 }),
      80,
    );
    assert.match(at80, /^\[█{2}░{18}\] {2}12% 12345\/99999 {2}1234 errors {2}1000 req\/s/);
    assert.equal(at80.length, 79);
    // Too narrow for a bar: the counts alone, cut to fit.
    const narrow = formatTtyProgress(snap(), 40);
    assert.ok(!narrow.includes('['), narrow);
    assert.ok(narrow.length <= 39);
    assert.equal(formatTtyProgress(snap(), 1), '');
    // An empty batch (still validating) draws an empty bar, not a division by zero.
    assert.match(formatTtyProgress(snap({ done: 0, total: 0 }), 100), /^\[░+\] {3}0% 0\/0/);
  });

  it('the meter measures the rate over recent polls and derives the ETA', () => {
    const m = new ProgressMeter(0);
    const b = (status: string, completed: number, failed = 0) => ({
      id: 'batch_1',
      status,
      total: 100,
      completed,
      failed,
    });
    // Validation does not count toward the rate.
    let s = m.observe(0, b('validating', 0));
    assert.equal(s.rate, null);
    assert.equal(s.etaMs, null);
    s = m.observe(500, b('in_progress', 0));
    assert.equal(s.rate, null, 'no rate from a single poll');
    s = m.observe(1000, b('in_progress', 5));
    assert.equal(s.rate, null, 'not yet a second of progress');
    s = m.observe(2500, b('in_progress', 18, 2));
    assert.equal(s.done, 20);
    assert.equal(s.failed, 2);
    assert.equal(s.rate, 10);
    assert.equal(s.etaMs, 8000);
    assert.equal(s.elapsedMs, 2500);
    // Old samples leave the window: the rate follows the recent pace.
    m.observe(12_500, b('in_progress', 18, 2));
    s = m.observe(20_500, b('in_progress', 18, 2));
    assert.equal(s.rate, 0, 'stalled for 18 s');
    assert.equal(s.etaMs, null);
    s = m.observe(22_500, b('in_progress', 38, 2));
    assert.equal(s.rate, 2, '20 more over the last 10 s');
    assert.equal(s.etaMs, 30_000);
    assert.equal(m.observe(23_000, b('completed', 90, 10)).etaMs, 0);
  });

  it('the summary names the outcome, counts, cost when known, errors and the results file', () => {
    const base = {
      batchId: 'batch_1',
      status: 'completed',
      total: 6,
      completed: 5,
      failed: 1,
      elapsedMs: 3200,
      costUsd: null,
      outPath: '/tmp/in.results.jsonl',
      errors: [],
    };
    assert.equal(
      formatSummary(base),
      'batch batch_1 completed in 3.2s\n  5 completed, 1 failed, of 6\n  results: /tmp/in.results.jsonl\n',
    );
    const failed = formatSummary({ ...base, status: 'failed', costUsd: 0.0001234, errors: ['every line invalid'] });
    assert.match(failed, /of 6; cost \$0\.000123\n {2}error: every line invalid\n/);
    assert.equal(formatCost(0), '0');
    assert.equal(formatCost(12.345), '12.35');
    assert.equal(formatCost(0.5), '0.5');
    assert.equal(formatCost(1e-7), '<0.000001');
  });
});
