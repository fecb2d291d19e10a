import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BoundedMemo } from './bounded-memo.ts';

describe('BoundedMemo', () => {
  test('computes a key once while it stays remembered', () => {
    const memo = new BoundedMemo<string, number>(2);
    let calls = 0;
    const len = (k: string) => {
      calls++;
      return k.length;
    };
    assert.equal(memo.get('abc', len), 3);
    assert.equal(memo.get('abc', len), 3);
    assert.equal(calls, 1);
  });

  test('forgets the least recently used key beyond its bound', () => {
    const memo = new BoundedMemo<string, string>(2);
    const seen: string[] = [];
    const upper = (k: string) => {
      seen.push(k);
      return k.toUpperCase();
    };
    memo.get('a', upper);
    memo.get('b', upper);
    memo.get('a', upper); // a is now the most recent
    memo.get('c', upper); // evicts b
    assert.equal(memo.size, 2);
    memo.get('a', upper);
    memo.get('c', upper);
    assert.deepEqual(seen, ['a', 'b', 'c']);
    memo.get('b', upper);
    assert.deepEqual(seen, ['a', 'b', 'c', 'b']);
  });

  test('a computation that throws is not remembered', () => {
    const memo = new BoundedMemo<string, number>(4);
    let fail = true;
    const flaky = () => {
      if (fail) throw new Error('no');
      return 1;
    };
    assert.throws(() => memo.get('k', flaky), /no/);
    assert.equal(memo.size, 0);
    fail = false;
    assert.equal(memo.get('k', flaky), 1);
  });

  test('refuses a bound below one', () => {
    assert.throws(() => new BoundedMemo(0), RangeError);
  });
});
