// The Vercel AI SDK's Anthropic provider (`ai` + `@ai-sdk/anthropic`) against `switchyard demo`, as a
// user points it at the gateway: baseURL = the beta (messages) family. The provider validates every
// answer against its schema, so a field the real API never sends (a text block's `citations: null`)
// fails here where the official SDK lets it through.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { BIN, cleanEnv } from './run-cli.ts';

function field(out: string, label: string): string {
  const m = new RegExp(`^${label}\\s+(\\S+)`, 'm').exec(out);
  assert.ok(m?.[1], `no "${label}" line in:\n${out}`);
  return m[1];
}

describe('@ai-sdk/anthropic through switchyard demo', () => {
  const root = mkdtempSync(join(tmpdir(), 'switchyard-ai-sdk-'));
  let child: ChildProcess;
  let out = '';
  let anthropic: ReturnType<typeof createAnthropic>;

  before(async () => {
    const tmp = join(root, 'tmp');
    mkdirSync(tmp);
    child = spawn(process.execPath, [BIN, 'demo', '--port', '0', '--upstream-port', '0'], {
      cwd: root,
      env: cleanEnv({ TMPDIR: tmp }),
    });
    child.stdout?.on('data', (d) => {
      out += String(d);
    });
    child.stderr?.on('data', (d) => {
      out += String(d);
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`demo not ready:\n${out}`)), 60_000);
      child.stdout?.on('data', () => {
        if (out.includes('==> Ctrl+C')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', () => reject(new Error(`demo exited:\n${out}`)));
    });
    anthropic = createAnthropic({
      baseURL: `${field(out, 'Gateway')}/beta/v1`,
      apiKey: field(out, 'Admin API key'),
    });
  });

  after(() => {
    if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  test('generateText answers and reports usage', async () => {
    const r = await generateText({ model: anthropic('anthropic/claude-sonnet-4-5'), prompt: 'Hello', maxRetries: 0 });
    assert.equal(r.text, 'Echo: Hello');
    assert.equal(r.finishReason, 'stop');
    assert.ok((r.usage.outputTokens ?? 0) > 0, JSON.stringify(r.usage));
  });

  test('streamText assembles the streamed text', async () => {
    const r = streamText({ model: anthropic('anthropic/claude-haiku-4-5'), prompt: 'Hello stream', maxRetries: 0 });
    let text = '';
    for await (const piece of r.textStream) text += piece;
    assert.equal(text, 'Echo: Hello stream');
    assert.equal(await r.finishReason, 'stop');
  });

  test('a tool loop: the model calls the tool, execute runs, the next step answers with its result', async () => {
    const calls: string[] = [];
    const weather = tool({
      description: 'current weather for a city',
      inputSchema: jsonSchema<{ city: string }>({
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
        additionalProperties: false,
      }),
      execute: async ({ city }) => {
        calls.push(city);
        return `18C and sunny in ${city}`;
      },
    });
    const r = await generateText({
      // `-tools`: the emulated vendor calls the first tool offered, then answers the tool result.
      model: anthropic('anthropic/claude-sonnet-4-5-tools'),
      tools: { get_weather: weather },
      stopWhen: stepCountIs(4),
      prompt: 'Paris',
      maxRetries: 0,
    });
    assert.equal(r.steps.length, 2, JSON.stringify(r.steps.map((s) => s.finishReason)));
    assert.equal(r.steps[0]?.finishReason, 'tool-calls');
    assert.equal(r.steps[0]?.toolCalls[0]?.toolName, 'get_weather');
    assert.deepEqual(calls, ['Paris']);
    assert.equal(r.finishReason, 'stop');
    assert.match(r.text, /18C and sunny in Paris/);
  });
});
