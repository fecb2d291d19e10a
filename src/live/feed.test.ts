import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Freshness } from './feed.ts';

describe('Freshness', () => {
  test('a newer stamp wins whichever read started first', () => {
    const f = new Freshness();
    const early = f.ticket();
    const late = f.ticket();
    assert.equal(f.admit('a', '2026-01-01T00:00:00.002Z', false, late), true);
    assert.equal(f.admit('a', '2026-01-01T00:00:00.001Z', false, late + 1), false, 'older stamp, later read');
    assert.equal(f.admit('a', '2026-01-01T00:00:00.003Z', false, early), true, 'newer stamp, earlier read');
  });

  test('on an equal stamp, the read that started later wins', () => {
    const f = new Freshness();
    const poll = f.ticket();
    const event = f.ticket();
    const stamp = '2026-01-01T00:00:00.000Z';
    assert.equal(f.admit('a', stamp, false, event), true);
    assert.equal(f.admit('a', stamp, false, poll), false, 'a poll that started before the event reload is stale');
    assert.equal(f.admit('a', stamp, false, event), true, 'the same read again is harmless');
    assert.equal(f.admit('a', stamp, false, f.ticket()), true);
  });

  test('a final state is never undone, and always applies', () => {
    const f = new Freshness();
    const t = f.ticket();
    assert.equal(f.admit('k', '2026-01-01T00:00:00.005Z', false, t), true);
    // Revocation stamped with a slightly older clock (another process) still applies.
    assert.equal(f.admit('k', '2026-01-01T00:00:00.004Z', true, t), true);
    assert.equal(f.admit('k', '2026-01-01T00:00:00.009Z', false, f.ticket()), false);
    assert.equal(f.admit('k', '2026-01-01T00:00:00.009Z', true, f.ticket()), true);
  });

  test('entities are judged separately', () => {
    const f = new Freshness();
    const t = f.ticket();
    assert.equal(f.admit('a', '2', true, t), true);
    assert.equal(f.admit('b', '1', false, t), true);
  });
});
