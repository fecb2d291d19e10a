import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResolvedCredential } from '../live/credentials.ts';
import { Breaker } from '../util/breaker.ts';
import { credentialFailure, orderCredentials } from './credential-pool.ts';

const cred = (id: string, weight: number): ResolvedCredential => ({
  id,
  vendor: 'openai',
  weight,
  credential: { apiKey: `sk-${id}`, baseUrl: null },
});

test('one credential is returned as it is (no allocation on the common path)', () => {
  const list = [cred('a', 1)];
  assert.equal(orderCredentials(list, new Breaker(), 0), list);
});

test('the first pick follows the weights; the rest is the failover order', () => {
  const list = [cred('a', 1), cred('b', 3)];
  // r in [0, 4): [0, 1) picks a, [1, 4) picks b.
  assert.deepEqual(
    orderCredentials(list, new Breaker(), 0, () => 0.2).map((c) => c.id),
    ['a', 'b'],
  );
  assert.deepEqual(
    orderCredentials(list, new Breaker(), 0, () => 0.3).map((c) => c.id),
    ['b', 'a'],
  );
});

test('standbys come after the weighted ones, credentials cooling down last (soonest back first)', () => {
  const breaker = new Breaker({ failureThreshold: 1, cooldownMs: 1000 });
  const list = [cred('a', 1), cred('b', 0), cred('c', 2), cred('d', 5)];
  breaker.failure('d', 100); // cools until 1100
  breaker.failure('a', 0); // cools until 1000
  assert.deepEqual(
    orderCredentials(list, breaker, 500, () => 0).map((c) => c.id),
    ['c', 'b', 'a', 'd'],
  );
  // After the cooldown they are back in the weighted draw.
  assert.equal(orderCredentials(list, breaker, 2000, () => 0.99)[0].id, 'd');
});

test('which failures move a call to another credential', () => {
  const e = (status: number, kind: 'authentication' | 'server' | 'timeout' | 'network' | 'invalid_request') => ({
    status,
    kind,
    message: '',
    retryable: false,
  });
  assert.equal(credentialFailure(e(401, 'authentication')), true);
  assert.equal(credentialFailure(e(503, 'server')), true);
  assert.equal(credentialFailure(e(502, 'network')), true);
  assert.equal(credentialFailure(e(504, 'timeout')), false, 'the caller already waited the whole deadline');
  assert.equal(credentialFailure(e(400, 'invalid_request')), false, 'the request itself is wrong');
});
