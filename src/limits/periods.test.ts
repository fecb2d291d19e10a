import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forecast, periodBounds } from './periods.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

test('UTC calendar periods', () => {
  const now = at('2026-11-25T15:30:00.000Z'); // a Wednesday
  const daily = periodBounds('daily', now, '2026-01-01T00:00:00Z');
  assert.deepEqual([iso(daily.start), iso(daily.end)], ['2026-11-25T00:00:00.000Z', '2026-11-26T00:00:00.000Z']);
  const weekly = periodBounds('weekly', now, '2026-01-01T00:00:00Z');
  assert.deepEqual([iso(weekly.start), iso(weekly.end)], ['2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z']);
  const sunday = periodBounds('weekly', at('2026-11-29T23:59:59.000Z'), '');
  assert.equal(iso(sunday.start), '2026-11-23T00:00:00.000Z');
  const monthly = periodBounds('monthly', at('2026-12-31T23:00:00Z'), '');
  assert.deepEqual([iso(monthly.start), iso(monthly.end)], ['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
  const total = periodBounds('total', now, '2026-03-04T05:06:07.000Z');
  assert.deepEqual([iso(total.start), total.end], ['2026-03-04T05:06:07.000Z', null]);
});

test('forecast projects linearly to the end of the period', () => {
  const bounds = periodBounds('daily', at('2026-11-25T06:00:00Z'), '');
  assert.equal(forecast(1, bounds, at('2026-11-25T06:00:00Z')), 4);
  assert.equal(forecast(3, { start: 0, end: null }, 1000), 3);
});
