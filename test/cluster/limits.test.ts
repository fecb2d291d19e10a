// Limits across three instances sharing Redis: an rpm limit of 30 admits exactly 30 of 90 requests
// sent round-robin in one burst, and a budget with room for 10 calls, hit by 60 concurrent calls
// spread over the instances, admits what one instance alone would (the same overspend bound).
// Under load: limits-stress.serial.test.ts; with Redis paused: limits-outage.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { chat, clusterWithFake } from './helpers.ts';
import { budgetBurst, burst, count, keyWith, refill } from './stress.ts';

describe('exact limits across instances', () => {
  const cluster = clusterWithFake(3);

  test('rpm 30, 90 requests round-robin in one burst: exactly 30 admitted', async () => {
    // A first call loads each instance's proxy path, so that the burst below is quick.
    assert.equal(count(await burst(cluster.nodes, 3, await keyWith(cluster.nodes, 'warm', {}), chat()), 200), 3);
    const key = await keyWith(cluster.nodes, 'rpm 30', { rpm: 30 });
    const started = performance.now();
    const statuses = await burst(cluster.nodes, 90, key, chat());
    const ms = performance.now() - started;
    const admitted = count(statuses, 200);
    // Exactly 30 unless the machine stretched the burst past 2 s, when GCRA's refill lets one more in.
    assert.ok(admitted >= 30 && admitted <= 30 + refill(30, ms), `${admitted} in ${Math.round(ms)} ms`);
    assert.equal(count(statuses, 429), 90 - admitted);
  });

  test('a budget with room for 10 calls, 60 concurrent over 3 instances: the single-instance bound', async () => {
    const a = cluster.nodes[0];
    // Each call reserves its estimate until it settles, so no more calls start than the budget has
    // room for, and what they cost never passes the limit (budgetBurst says how the burst is shaped).
    const run = (name: string, nodes: GatewayProcess[]) => budgetBurst(a, nodes, name, 3000);
    const one = await run('budget-one', [a]);
    const three = await run('budget-three', cluster.nodes);
    assert.equal(one.admitted, 10, JSON.stringify(one));
    assert.equal(three.admitted, one.admitted, JSON.stringify({ one, three }));
    assert.equal(three.refused, 50);
    assert.ok(three.spent <= 0.0062, `spent ${three.spent}`);
  });
});
