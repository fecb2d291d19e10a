// The strongest guardrail action of each call is a column of its log row, filtered on over the
// management API and the MCP `list_logs` tool; and a stream whose upstream breaks keeps the output
// verdicts it had reached, with its held-back tail checked as the end of the answer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { logAction } from '../../src/guardrails/log-action.ts';
import { api, type ProxyEnv, scripted, startProxyEnv } from '../helpers/proxy-env.ts';
import {
  ask,
  type Family,
  guardedProject,
  type Json,
  logRow,
  MODELS,
  rawStream,
  streamedText,
} from './pipeline-env.ts';

interface Summary {
  id: string;
}

describe('guardrail_action in the request log', () => {
  let env: ProxyEnv;
  before(async () => {
    env = await startProxyEnv();
  });
  after(async () => {
    await env?.close();
  });

  test('the strongest action wins, enforced before shadow', () => {
    const v = (action: 'block' | 'mask' | 'flag', mode: 'enforce' | 'shadow') => ({
      policy_id: 'p',
      policy_name: 'p',
      mode,
      check_index: 0,
      check_type: 'regex' as const,
      stage: 'input' as const,
      action,
      applied: mode === 'enforce',
      counts: {},
    });
    assert.equal(logAction([]), null);
    assert.equal(logAction([v('flag', 'enforce'), v('block', 'enforce'), v('mask', 'enforce')]), 'block');
    assert.equal(logAction([v('flag', 'enforce'), v('mask', 'enforce')]), 'mask');
    assert.equal(logAction([v('block', 'shadow'), v('flag', 'enforce')]), 'flag');
    assert.equal(logAction([v('flag', 'shadow'), v('block', 'shadow')]), 'shadow_block');
  });

  test('calls are found by their strongest action, over the API and the MCP tool', async () => {
    const p = await guardedProject(env, [
      {
        mode: 'enforce',
        checks: [
          { type: 'pii', stage: 'input', action: 'mask', entities: ['email'] },
          { type: 'regex', stage: 'input', action: 'block', patterns: ['forbidden'] },
          { type: 'keywords', stage: 'input', action: 'flag', words: ['banana', 'forbidden'] },
        ],
      },
      { mode: 'shadow', checks: [{ type: 'keywords', stage: 'input', action: 'block', words: ['cherry'] }] },
    ]);
    const ids: Record<string, string> = {};
    for (const [name, prompt] of [
      ['mask', 'Write to jane.doe@example.com and mention banana'],
      ['flag', 'I like banana bread'],
      ['shadow_block', 'cherry pie recipe'],
      ['none', 'nothing to see here'],
    ] as const) {
      const r = await ask(env, p.key, 'alpha', prompt, false);
      assert.ok(r.requestId);
      ids[name] = r.requestId;
    }
    const refused = await fetch(`${env.gw.url}/alpha/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODELS.alpha, messages: [{ role: 'user', content: 'this is forbidden' }] }),
    });
    assert.equal(refused.status, 400);
    ids.block = refused.headers.get('x-request-id') ?? '';
    await logRow(env, ids.block);
    for (const action of ['block', 'mask', 'flag', 'shadow_block']) {
      const r = await api(env.gw, 'GET', `/manage/v1/logs?project_id=${p.projectId}&guardrail_action=${action}`);
      assert.equal(r.status, 200, JSON.stringify(r.json));
      const found = ((r.json as Json).data as Summary[]).map((s) => s.id);
      assert.deepEqual(found, [ids[action]], action);
    }
    const row = await logRow(env, ids.none);
    assert.equal(row.id, ids.none);
    const all = await api(env.gw, 'GET', `/manage/v1/logs?project_id=${p.projectId}`);
    assert.equal(((all.json as Json).data as Summary[]).length, 5);
    const bad = await api(env.gw, 'GET', `/manage/v1/logs?guardrail_action=allow`);
    assert.equal(bad.status, 400);

    const client = new Client({ name: 'guardrail-logs-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${env.gw.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${env.gw.adminKey}` } },
      }),
    );
    try {
      const listed = await client.callTool({
        name: 'list_logs',
        arguments: { project_id: p.projectId, guardrail_action: 'mask' },
      });
      assert.ok(!listed.isError, JSON.stringify(listed));
      assert.deepEqual(
        ((listed.structuredContent as { data: Summary[] }).data ?? []).map((s) => s.id),
        [ids.mask],
      );
    } finally {
      await client.close();
    }
  });

  const FAMILIES: Family[] = ['alpha', 'beta'];
  for (const family of FAMILIES) {
    for (const broken of ['midstream-cut', 'midstream-error'])
      test(`${family} ${broken}: a broken upstream stream keeps its output verdicts and checks the held-back tail`, async () => {
        const p = await guardedProject(env, [
          {
            checks: [
              { type: 'regex', stage: 'output', action: 'mask', patterns: ['\\bzeus\\b'], max_match: 10 },
              { type: 'keywords', stage: 'output', action: 'flag', words: ['hello'] },
            ],
          },
        ]);
        // One content delta with the whole echo, then the connection drops (cut) or an error record comes.
        const model = scripted(MODELS.alpha, `chunks-1-${broken}`);
        const r = await rawStream(env, p.key, family, 'Say hello to zeus', model);
        assert.equal(r.status, 200);
        // The match sat in the held-back tail: flushed at the break, masked as at a normal end.
        assert.equal(streamedText(r.text), 'Echo: Say hello to [REDACTED_1]');
        assert.ok(!r.text.includes('zeus'), r.text);
        assert.match(r.text, broken === 'midstream-cut' ? /upstream stream broke/ : /scripted midstream-error/);
        assert.ok(r.text.indexOf('REDACTED_1') < r.text.search(/upstream stream broke|scripted midstream-error/));
        const requestId = r.headers.get('x-request-id');
        assert.ok(requestId);
        const row = await logRow(env, requestId);
        assert.equal(row.status_code, 502);
        const verdicts = ((row.decision_trace as Json).guardrails as Json[]).map((v) => ({
          stage: v.stage,
          check: v.check_type,
          action: v.action,
          counts: v.counts,
        }));
        assert.deepEqual(verdicts, [
          { stage: 'output', check: 'regex', action: 'mask', counts: { regex: 1 } },
          { stage: 'output', check: 'keywords', action: 'flag', counts: { keyword: 1 } },
        ]);
        const found = await api(env.gw, 'GET', `/manage/v1/logs?project_id=${p.projectId}&guardrail_action=mask`);
        assert.deepEqual(
          ((found.json as Json).data as Summary[]).map((s) => s.id),
          [requestId],
        );
        assert.ok(!JSON.stringify(row.response).includes('zeus'), JSON.stringify(row.response));
      });
  }
});
