// Shared test helpers: a fake upstream on an ephemeral port, SDK clients pointed at it, raw HTTP calls.
import OpenAI from 'openai';
import type { FakeOptions } from '../context.ts';
import { type FakeUpstream, startFakeUpstream } from '../server.ts';

export type { FakeUpstream };

/** Starts the fake on port 0 (tests shorten batch phases by default). */
export function startTestFake(options: FakeOptions = {}): Promise<FakeUpstream> {
  return startFakeUpstream({ port: 0, batchStepMs: 30, ...options });
}

/** An official OpenAI client on one of the OpenAI-wire prefixes, without retries so failures surface. */
export function openaiClient(fake: FakeUpstream, prefix = '/openai/v1', apiKey = 'sk-test-key'): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${fake.url}${prefix}`, maxRetries: 0 });
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body, or undefined when it is not JSON. */
  json: unknown;
}

/** A plain HTTP call: for requests the SDKs refuse to build (bad bodies, missing auth). */
export async function raw(
  fake: FakeUpstream,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { authorization: 'Bearer sk-test-key' },
): Promise<RawResponse> {
  const res = await fetch(`${fake.url}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Polls `read` until `done` holds (or fails after `timeoutMs`). */
export async function pollUntil<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`pollUntil timed out; last value: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}

/**
 * Asserts a `pace-<ms>` stream spread its records over time. Gaps between arrivals prove nothing on a
 * busy machine (a client that stalls reads several records at once), but the last record cannot arrive
 * before the fake slept between every pair, so the span since the request is a firm lower bound.
 * A timer may fire up to 1 ms early against `performance.now`, hence the slack.
 */
export function assertPaced(started: number, arrivals: readonly number[], paceMs: number): void {
  const span = (arrivals.at(-1) ?? started) - started;
  const least = (arrivals.length - 1) * (paceMs - 1);
  if (span < least)
    throw new Error(`${arrivals.length} records in ${span.toFixed(1)} ms, expected at least ${least} ms`);
}
