// Runs CONFORMANCE_CASES for every vendor through one family driver, registering node:test tests.
// A family supplies a driver that turns a neutral request into its own wire call and normalizes the answer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ProxyEnv, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';
import {
  CONFORMANCE_CASES,
  CONFORMANCE_VENDORS,
  type ConformanceCase,
  type ConformanceVendor,
  type Expectation,
} from './cases.ts';
import { lastGeneration, upstreamView } from './upstream-view.ts';

export interface NeutralOutcome {
  status: number;
  headers: Headers;
  text: string | null;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  /** Neutral names: `stop`, `tool_calls`, `length`, ... */
  finishReason: string | null;
  usage: { input: number; output: number } | null;
  /** Error body of a non-2xx answer, or the error record that ended a stream. */
  error: { message: string; type?: string; code?: string | null } | null;
  /** A 200 stream that ended with an error record. */
  streamError: boolean;
  /** The client aborted the call (abort cases). */
  aborted: boolean;
}

export interface DriverCall {
  model: string;
  stream: boolean;
  providerKey?: string;
  /** Abort the call this many ms after sending (abort cases). */
  abortAfterMs?: number;
}

export interface FamilyDriver {
  family: string;
  /** A reason to skip a case the family cannot express, or null. */
  unsupported?(c: ConformanceCase, stream: boolean): string | null;
  send(env: ProxyEnv, c: ConformanceCase, call: DriverCall): Promise<NeutralOutcome>;
}

/** The model name for a vendor with the case's script suffix. */
export function caseModel(vendor: ConformanceVendor, c: ConformanceCase): string {
  const base = VENDOR_MODELS[vendor];
  return c.script ? `${base}-${c.script}` : base;
}

async function logRowStatus(env: ProxyEnv, model: string): Promise<number | undefined> {
  const svc = env.gw.app.svc;
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 25));
    await svc.logs.flush();
    const rows = await svc.stores.logs.list({ orgId: svc.bootstrap.orgId }, { limit: 20 });
    const row = rows.find((r) => r.modelRequested === model || r.modelRequested?.endsWith(model));
    if (row) return row.statusCode;
  }
  return undefined;
}

function checkExpectation(e: Expectation, out: NeutralOutcome, stream: boolean): void {
  const ctx = JSON.stringify({ status: out.status, error: out.error, text: out.text, finish: out.finishReason });
  switch (e.kind) {
    case 'text':
      assert.equal(out.status, 200, ctx);
      assert.equal(out.text, e.text);
      assert.equal(out.finishReason, 'stop');
      return;
    case 'json': {
      assert.equal(out.status, 200, ctx);
      const parsed: unknown = JSON.parse(out.text ?? '');
      assert.ok(typeof parsed === 'object' && parsed !== null, out.text ?? '');
      for (const k of e.keys) assert.ok(k in parsed, `missing ${k} in ${out.text}`);
      return;
    }
    case 'tool_calls':
      assert.equal(out.status, 200, ctx);
      assert.equal(out.finishReason, 'tool_calls');
      assert.equal(out.toolCalls.length, e.count, JSON.stringify(out.toolCalls));
      for (const call of out.toolCalls) {
        assert.ok(call.id.length > 0, 'tool call id present');
        assert.ok(e.names.includes(call.name), call.name);
        const args: unknown = JSON.parse(call.arguments);
        assert.deepEqual(args, { city: 'Paris' });
      }
      assert.equal(new Set(out.toolCalls.map((c) => c.id)).size, e.count, 'tool call ids unique');
      return;
    case 'error': {
      const ok = Array.isArray(e.status) ? e.status.includes(out.status) : out.status === e.status;
      assert.ok(ok, `status ${out.status}, want ${String(e.status)}: ${ctx}`);
      assert.ok(out.error && out.error.message.length > 0, `error message present: ${ctx}`);
      if (e.code) assert.equal(out.error?.code, e.code);
      if (e.retryAfter) assert.ok(out.headers.get('retry-after'), 'retry-after kept');
      return;
    }
    case 'midstream_error':
      assert.ok(stream);
      assert.equal(out.status, 200, ctx);
      assert.ok(out.streamError, `stream ended with an error record: ${ctx}`);
      return;
    case 'aborted':
      assert.ok(out.aborted, 'client aborted');
      return;
  }
}

/** Registers one describe block per vendor with every case (and its stream variant). */
export function runConformance(driver: FamilyDriver): void {
  let env: ProxyEnv;
  before(async () => {
    env = await startProxyEnv();
  });
  after(async () => {
    await env?.close();
  });

  for (const vendor of CONFORMANCE_VENDORS) {
    describe(`${driver.family} conformance: ${vendor}`, () => {
      for (const c of CONFORMANCE_CASES) {
        for (const mode of c.modes ?? ['json', 'stream']) {
          const stream = mode === 'stream';
          const name = stream ? `${c.id} (stream)` : c.id;
          const skip = c.skip?.[vendor] ?? driver.unsupported?.(c, stream) ?? undefined;
          test(name, { skip: skip ?? false }, async () => {
            const model = caseModel(vendor, c);
            env.fake.clearRequests();
            const expect = c.expectFor?.[vendor] ?? c.expect;
            const out = await driver.send(env, c, {
              model,
              stream,
              providerKey: c.providerKey,
              abortAfterMs: expect.kind === 'aborted' ? 300 : undefined,
            });
            checkExpectation(expect, out, stream);
            if (c.usage) {
              assert.ok(out.usage, 'usage present');
              assert.ok(out.usage.output > 0 && out.usage.input > 0, JSON.stringify(out.usage));
            }
            const up = c.upstreamFor?.[vendor] ?? c.upstream;
            if (up) {
              const rec = lastGeneration(env.fake.requests());
              assert.ok(rec, 'upstream request recorded');
              const view = upstreamView(vendor, rec.body);
              if (up.system !== undefined) assert.equal(view.system, up.system);
              if (up.messages !== undefined) assert.equal(view.messages, up.messages);
              if (up.images !== undefined) assert.equal(view.images, up.images);
              if (up.toolResults !== undefined) assert.equal(view.toolResults, up.toolResults);
            }
            if (expect.kind === 'aborted') assert.equal(await logRowStatus(env, model), 499, 'log row 499');
          });
        }
      }
    });
  }
}
