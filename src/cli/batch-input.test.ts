import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeResults, prepareBatchInput } from './batch-input.ts';

const chat = (model: string | undefined, text: string) => ({
  ...(model === undefined ? {} : { model }),
  messages: [{ role: 'user', content: text }],
});
const jsonl = (...lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');

function uploaded(text: string, model?: string) {
  const r = prepareBatchInput(text, { model });
  assert.ok(r.ok, JSON.stringify(r));
  return {
    ...r.batch,
    lines: r.batch.jsonl
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l)),
  };
}

describe('batch run input', () => {
  it('takes full batch lines and bare bodies, numbering the bare ones by their line', () => {
    const b = uploaded(
      jsonl(
        { custom_id: 'q1', method: 'POST', url: '/v1/chat/completions', body: chat('openai/gpt-4o-mini', 'a') },
        '',
        chat('google/gemini-2.0-flash', 'b'),
        { body: chat('anthropic/claude-3-5-haiku-latest', 'c') },
      ),
    );
    assert.equal(b.endpoint, '/v1/chat/completions');
    assert.deepEqual(b.customIds, ['q1', 'line-3', 'line-4']);
    assert.deepEqual(b.lines[1], {
      custom_id: 'line-3',
      method: 'POST',
      url: '/v1/chat/completions',
      body: chat('google/gemini-2.0-flash', 'b'),
    });
    assert.equal(b.lines[2].method, 'POST');
    assert.ok(b.jsonl.endsWith('}\n'));
  });

  it('--model sets the model of every line, with or without one', () => {
    const b = uploaded(jsonl(chat(undefined, 'a'), { custom_id: 'x', body: chat('openai/gpt-4o', 'b') }), '@evals');
    assert.deepEqual(
      b.lines.map((l) => l.body.model),
      ['@evals', '@evals'],
    );
  });

  it('embeddings lines are fine when every line is one', () => {
    const emb = (id: string) => ({ custom_id: id, url: '/v1/embeddings', body: { model: 'openai/x', input: id } });
    const b = uploaded(jsonl(emb('a'), emb('b')));
    assert.equal(b.endpoint, '/v1/embeddings');
  });

  it('reports every bad line by number and prepares nothing', () => {
    const r = prepareBatchInput(
      jsonl(
        chat('m', 'ok'),
        '{"messages": [',
        '[1, 2]',
        { custom_id: 'line-1', body: chat('m', 'taken') },
        { custom_id: 'e', url: '/v1/embeddings', body: { model: 'm', input: 'x' } },
        { custom_id: 'bad-url', url: '/v1/nope', body: {} },
        { custom_id: '', body: {} },
        { custom_id: 'b', body: 'text' },
      ),
    );
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.deepEqual(
      r.problems.map((p) => p.line),
      [2, 3, 4, 5, 6, 7, 8],
    );
    assert.match(r.problems[0]?.message ?? '', /^not valid JSON/);
    assert.equal(r.problems[1]?.message, 'expected a JSON object');
    assert.equal(r.problems[2]?.message, 'custom_id "line-1" is already used on line 1');
    assert.match(
      r.problems[3]?.message ?? '',
      /differs from \/v1\/chat\/completions \(line 1\): a batch has one endpoint/,
    );
    assert.match(r.problems[4]?.message ?? '', /^url must be one of/);
  });

  it('an empty input is refused', () => {
    const r = prepareBatchInput('\n  \n');
    assert.deepEqual(r, { ok: false, problems: [{ line: 0, message: 'the input holds no requests' }] });
  });
});

describe('batch run results', () => {
  const out = (id: string) =>
    JSON.stringify({ id: `r_${id}`, custom_id: id, response: { status_code: 200 }, error: null });
  const err = (id: string, code: string) =>
    JSON.stringify({ id: `r_${id}`, custom_id: id, response: null, error: { code, message: code } });

  it('merges the output and error files into the input order', () => {
    const m = mergeResults(['c', 'a', 'b'], `${out('a')}\n${out('c')}\n`, `${err('b', 'invalid_body')}\n`, 'completed');
    assert.deepEqual(
      m.text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).custom_id),
      ['c', 'a', 'b'],
    );
    assert.equal(m.missing, 0);
    assert.equal(m.unknown, 0);
  });

  it('fills in what the gateway did not return, by how the batch ended, and leaves out strangers', () => {
    const m = mergeResults(['a', 'b', 'c'], out('a'), `${err('zzz', 'x')}\nnot json\n`, 'cancelled');
    const lines = m.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 3);
    assert.deepEqual(
      lines.map((l) => l.error?.code ?? null),
      [null, 'batch_cancelled', 'batch_cancelled'],
    );
    assert.equal(m.missing, 2);
    assert.equal(m.unknown, 2);
    assert.equal(JSON.parse(mergeResults(['a'], '', '', 'expired').text).error.code, 'batch_expired');
    assert.equal(JSON.parse(mergeResults(['a'], '', '', 'failed').text).error.code, 'missing_result');
  });

  it('an output line wins over an error line for the same request', () => {
    const m = mergeResults(['a'], out('a'), err('a', 'batch_cancelled'), 'cancelled');
    assert.equal(JSON.parse(m.text).error, null);
  });
});
