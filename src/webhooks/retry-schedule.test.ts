import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DEFAULT_RETRY_SCHEDULE_MS,
  maxAttempts,
  parseRetrySchedule,
  RETRY_JITTER,
  retryDelayMs,
  scheduleSpanMs,
} from './retry-schedule.ts';

const HOUR = 3_600_000;

test('the default is the Standard Webhooks schedule, about 28 hours', () => {
  assert.deepEqual(
    [...DEFAULT_RETRY_SCHEDULE_MS],
    [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
  );
  const span = scheduleSpanMs(DEFAULT_RETRY_SCHEDULE_MS);
  assert.ok(span > 27 * HOUR && span < 29 * HOUR);
  assert.equal(maxAttempts(DEFAULT_RETRY_SCHEDULE_MS), 8);
  assert.ok(Object.isFrozen(DEFAULT_RETRY_SCHEDULE_MS));
});

test('unset or blank gives the default; both documented spellings give the same schedule', () => {
  assert.equal(parseRetrySchedule(undefined), DEFAULT_RETRY_SCHEDULE_MS);
  assert.equal(parseRetrySchedule(null), DEFAULT_RETRY_SCHEDULE_MS);
  assert.equal(parseRetrySchedule('  '), DEFAULT_RETRY_SCHEDULE_MS);
  assert.deepEqual(parseRetrySchedule('5s,5m,30m,2h,5h,10h,10h'), DEFAULT_RETRY_SCHEDULE_MS);
  assert.deepEqual(parseRetrySchedule('5,300,1800,7200,18000,36000,36000'), DEFAULT_RETRY_SCHEDULE_MS);
});

test('units, spaces, case and fractions', () => {
  assert.deepEqual(parseRetrySchedule(' 250ms , 1.5s, 2M ,1H,1d'), [250, 1_500, 120_000, HOUR, 24 * HOUR]);
  assert.deepEqual(parseRetrySchedule('10'), [10_000]);
  assert.deepEqual(parseRetrySchedule('none'), []);
  assert.equal(maxAttempts(parseRetrySchedule('NONE')), 1);
});

test('bad values are refused with a message naming the variable and the entry', () => {
  const cases: Array<[string, RegExp]> = [
    ['5s,,5m', /delay 2 is empty/],
    ['5s,', /delay 2 is empty/],
    ['5x', /"5x" is not a delay.*ms, s, m, h, d/],
    ['-5s', /"-5s" is not a delay/],
    ['5 s', /"5 s" is not a delay/],
    ['1e3', /"1e3" is not a delay/],
    ['abc', /"abc" is not a delay/],
    ['0s', /"0s" must be greater than zero/],
    ['0.0001ms', /must be greater than zero/],
    ['36000h', /"36000h" is longer than 7 days/],
    [Array.from({ length: 51 }, () => '1s').join(','), /51 delays; at most 50/],
  ];
  for (const [raw, want] of cases) {
    assert.throws(
      () => parseRetrySchedule(raw),
      (e: Error) => {
        assert.match(e.message, /^SWITCHYARD_WEBHOOK_RETRY_SCHEDULE/);
        assert.match(e.message, want);
        return true;
      },
    );
  }
  assert.throws(() => parseRetrySchedule('x', 'MY_VAR'), /^Error: MY_VAR/);
});

test('retryDelayMs follows the schedule within the jitter band and stops when it runs out', () => {
  const schedule = [1_000, 60_000, HOUR];
  assert.equal(
    retryDelayMs(1, schedule, () => 0.5),
    1_000,
  );
  assert.equal(
    retryDelayMs(2, schedule, () => 0),
    60_000 * (1 - RETRY_JITTER),
  );
  assert.equal(
    retryDelayMs(3, schedule, () => 0.999999),
    Math.round(HOUR * (1 + RETRY_JITTER * 0.999998)),
  );
  assert.equal(
    retryDelayMs(4, schedule, () => 0.5),
    null,
  );
  assert.equal(
    retryDelayMs(1, [], () => 0.5),
    null,
  );
  for (let i = 0; i < 200; i++) {
    const d = retryDelayMs(2, schedule)!;
    assert.ok(d >= 48_000 && d <= 72_000, String(d));
  }
});

test('retryDelayMs uses the default schedule and refuses a nonsensical attempt number', () => {
  assert.equal(
    retryDelayMs(1, undefined, () => 0.5),
    5_000,
  );
  assert.equal(
    retryDelayMs(7, undefined, () => 0.5),
    36_000_000,
  );
  assert.equal(
    retryDelayMs(8, undefined, () => 0.5),
    null,
  );
  assert.throws(() => retryDelayMs(0), /positive integer/);
  assert.throws(() => retryDelayMs(1.5), /positive integer/);
});

test('jitter spreads deliveries that failed together', () => {
  const delays = new Set(Array.from({ length: 100 }, () => retryDelayMs(5)));
  assert.ok(delays.size > 50);
});
