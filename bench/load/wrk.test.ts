import assert from 'node:assert/strict';
import { test } from 'node:test';
import { luaLongString, parseWrkOutput, wrkScript } from './wrk.ts';

test('luaLongString picks a level the text cannot close', () => {
  assert.equal(luaLongString('{"a":1}'), '[=[{"a":1}]=]');
  assert.equal(luaLongString('x]=]y'), '[==[x]=]y]==]');
});

test('wrkScript sets method, body, headers and a JSON done hook', () => {
  const s = wrkScript({ headers: { authorization: 'Bearer k' }, body: '{"model":"m"}' });
  assert.match(s, /wrk\.method = "POST"/);
  assert.match(s, /wrk\.body = \[=\[\{"model":"m"\}\]=\]/);
  assert.match(s, /wrk\.headers\[ \[=\[authorization\]=\] \] = \[=\[Bearer k\]=\]/);
  assert.match(s, /wrk\.headers\[ \[=\[content-type\]=\] \] = \[=\[application\/json\]=\]/);
  assert.match(s, /latency:percentile\(50\)/);
});

test('parseWrkOutput reads the marked line', () => {
  const out = [
    'Running 2s test @ http://127.0.0.1:1/x',
    'BENCHJSON {"requests":2000,"duration_us":2000000,"p50_us":450,"p99_us":1200,"connect":0,"read":1,"write":0,"timeout":2,"status":5}',
  ].join('\n');
  assert.deepEqual(parseWrkOutput(out), { requests: 2000, rps: 1000, p50Ms: 0.45, p99Ms: 1.2, non2xx: 5, errors: 3 });
  assert.throws(() => parseWrkOutput('nothing'), /no result line/);
});
