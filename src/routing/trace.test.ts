import assert from 'node:assert/strict';
import test from 'node:test';
import { decisionTrace, directDecision, directTrace } from './trace.ts';

test('directTrace is the direct decision trace, built without the decision', () => {
  const attempts = [
    {
      model: 'gpt-4o-mini',
      provider: 'openai',
      status: 200,
      outcome: 'success' as const,
      latency_ms: 3.5,
      cost_usd: 0.0001,
    },
  ];
  const served = { model: 'gpt-4o-mini', provider: 'openai' };
  const full = decisionTrace('direct', null, directDecision('gpt-4o-mini', 'openai'), attempts, served);
  const short = directTrace('gpt-4o-mini', 'openai', attempts, served);
  assert.deepEqual(short, full);
  // Same key order too: the trace is logged as JSON text.
  assert.equal(JSON.stringify(short), JSON.stringify(full));
  assert.equal(
    JSON.stringify(directTrace('m', 'p', [], null)),
    JSON.stringify(decisionTrace('direct', null, directDecision('m', 'p'), [], null)),
  );
});
