import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isRetryableStatus, kindForStatus, retryAfterSeconds, upstreamErrorInfo } from './upstream.ts';

test('kindForStatus: one class per status for every wire', () => {
  const cases: Array<[number, string]> = [
    [400, 'invalid_request'],
    [401, 'authentication'],
    [402, 'permission'],
    [403, 'permission'],
    [404, 'not_found'],
    [408, 'timeout'],
    [409, 'invalid_request'],
    [413, 'invalid_request'],
    [422, 'invalid_request'],
    [429, 'rate_limit'],
    [500, 'server'],
    [502, 'server'],
    [503, 'overloaded'],
    [504, 'timeout'],
    [529, 'overloaded'],
  ];
  for (const [status, kind] of cases) assert.equal(kindForStatus(status), kind, String(status));
});

test('isRetryableStatus: 408, 409, 429 and 5xx', () => {
  const retryable = [400, 401, 403, 404, 408, 409, 413, 422, 424, 429, 500, 503, 529].filter(isRetryableStatus);
  assert.deepEqual(retryable, [408, 409, 429, 500, 503, 529]);
});

test('retryAfterSeconds: retry-after-ms wins, seconds pass, dates count down, any header case', () => {
  assert.equal(retryAfterSeconds({ 'retry-after-ms': '1500', 'retry-after': '9' }), '1.5');
  assert.equal(retryAfterSeconds({ 'Retry-After': ' 3 ' }), '3');
  assert.equal(retryAfterSeconds({ 'retry-after': ['4', '5'] }), '4');
  const in10s = new Date(Date.now() + 10_000).toUTCString();
  const left = Number(retryAfterSeconds({ 'retry-after': in10s }));
  assert.ok(left >= 9 && left <= 11, String(left));
  assert.equal(retryAfterSeconds({ 'retry-after': 'soon' }), undefined);
  assert.equal(retryAfterSeconds({}), undefined);
});

test('upstreamErrorInfo: body details win, x-should-retry overrules, HTML is no message', () => {
  assert.deepEqual(upstreamErrorInfo(400, '{"e":1}', {}, { message: 'bad', code: 'c', kind: 'authentication' }), {
    status: 400,
    kind: 'authentication',
    message: 'bad',
    code: 'c',
    retryable: false,
    raw: '{"e":1}',
  });
  assert.equal(upstreamErrorInfo(500, '', { 'x-should-retry': 'false' }, {}).retryable, false);
  assert.equal(upstreamErrorInfo(400, '', { 'x-should-retry': 'true' }, {}).retryable, true);
  assert.equal(upstreamErrorInfo(502, '<html>x</html>', {}, {}).message, 'upstream returned HTTP 502');
  assert.equal(upstreamErrorInfo(502, 'Bad Gateway', {}, {}).message, 'Bad Gateway');
});
