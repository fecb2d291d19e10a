// Small helpers shared by the Anthropic, Gemini and Bedrock emulations (ids, narrowing, JSON-ish values).
import { randomBytes } from 'node:crypto';
import type { FakeContext } from '../context.ts';

export type Json = Record<string, unknown>;

export function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isStr(v: unknown): v is string {
  return typeof v === 'string';
}

export function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 id with a vendor prefix, e.g. `msg_01` + 22 chars, like the real ids look. */
export function randomId(prefix: string, len = 22): string {
  const bytes = randomBytes(len);
  let s = prefix;
  for (let i = 0; i < len; i++) s += BASE62[bytes[i] % 62];
  return s;
}

/** Resolves when the client goes away; used by `hang` so the handler does not leak forever. */
export function untilClosed(ctx: FakeContext): Promise<void> {
  return new Promise((resolve) => {
    if (ctx.req.destroyed || ctx.res.destroyed) resolve();
    ctx.res.on('close', () => resolve());
  });
}

/**
 * Deterministic tool input: `{query: <text>}` when the schema allows it, otherwise the first string
 * property set to the text (the same convention as the OpenAI-wire emulation).
 */
export function toolInput(schema: unknown, text: string): Json {
  const props = isObj(schema) && isObj(schema.properties) ? schema.properties : undefined;
  if (!props || Object.keys(props).length === 0 || 'query' in props) return { query: text };
  for (const [k, p] of Object.entries(props)) {
    if (isObj(p) && String(p.type).toLowerCase() === 'string') return { [k]: text };
  }
  return {};
}
