// Scripted behaviour, read from the model name so tests need no side channel (DESIGN.md section 7).
export interface Script {
  fail429: boolean;
  fail500: boolean;
  fail400: boolean;
  /** Milliseconds to wait before answering. */
  slowMs: number;
  /** Never answer (timeout tests). */
  hang: boolean;
  /** Number of tool calls to answer with (0 = plain text). `tools` -> 1, `tools-2` -> 2. */
  toolCalls: number;
  thinking: boolean;
  json: boolean;
  badjson: boolean;
  long: boolean;
  midstreamError: boolean;
  /** Drop the connection after the first content delta, with no error record (a broken upstream). */
  midstreamCut: boolean;
  /** Stop sending after the first content delta and keep the connection open (idle-timeout tests). */
  midstreamStall: boolean;
  /** Embedding length forced whatever was asked (`dims-<n>`). */
  dims?: number;
  /** Number of content deltas a stream is cut into (`chunks-<n>`, used by bench/). */
  chunks?: number;
  /** Milliseconds between stream records (`pace-<n>`), so each arrives in its own read (bench/). */
  paceMs?: number;
}

const cache = new Map<string, Script>();

export function parseScript(model: string | undefined | null): Script {
  const key = model ?? '';
  const hit = cache.get(key);
  if (hit) return hit;
  const m = key.toLowerCase();
  const slow = /slow-(\d+)/.exec(m);
  const dims = /dims-(\d+)/.exec(m);
  const chunks = /chunks-(\d+)/.exec(m);
  const pace = /(?:^|[^a-z])pace-(\d+)/.exec(m);
  const tools = /tools(?:-(\d+))?/.exec(m);
  const s: Script = {
    fail429: m.includes('fail-429'),
    fail500: m.includes('fail-500'),
    fail400: m.includes('fail-400'),
    slowMs: slow ? Number(slow[1]) : 0,
    hang: m.includes('hang'),
    toolCalls: tools ? Number(tools[1] ?? 1) : 0,
    thinking: m.includes('thinking'),
    json: /(^|[^d])json/.test(m),
    badjson: m.includes('badjson'),
    long: m.includes('long'),
    midstreamError: m.includes('midstream-error'),
    midstreamCut: m.includes('midstream-cut'),
    midstreamStall: m.includes('midstream-stall'),
    dims: dims ? Number(dims[1]) : undefined,
    chunks: chunks ? Number(chunks[1]) : undefined,
    paceMs: pace ? Number(pace[1]) : undefined,
  };
  if (cache.size < 10_000) cache.set(key, s);
  return s;
}

/**
 * Keys are scripted too: any non-empty key is accepted, except one with a part (split on anything
 * but letters and digits) spelled `bad`, `invalid` or `revoked`, which the vendor refuses as a
 * wrong key (`sk-bad-key`, `revoked-key-01`). Matching whole parts keeps random keys (hex has b, a
 * and d) from being refused by chance.
 */
const REFUSED_KEY_PARTS = new Set(['bad', 'invalid', 'revoked']);

export function isRefusedKey(key: string): boolean {
  return key
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .some((part) => REFUSED_KEY_PARTS.has(part));
}

/** `Authorization: Bearer <key>` -> the key; undefined when absent, not Bearer, or empty (sent as no key). */
export function bearerKey(authorization: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S.*)$/i.exec(authorization?.trim() ?? '');
  return m ? m[1].trim() : undefined;
}

/** A header value, undefined when absent or blank (vendors answer an empty key as a missing one). */
export function presentKey(value: string | undefined | null): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

/** Deterministic token estimate: one token per 4 characters, at least 1 for non-empty text. */
export function countTokens(text: string): number {
  return text.length === 0 ? 0 : Math.max(1, Math.ceil(text.length / 4));
}

/**
 * Deterministic answer derived from the last user text so that tests can assert exact output:
 * `Echo: <text>` (cut at 200 chars). `json` models answer a JSON object; `badjson` a broken one;
 * `long` repeats the echo to produce many stream chunks.
 */
export function replyText(script: Script, lastUserText: string): string {
  const cut = lastUserText.length > 200 ? lastUserText.slice(0, 200) : lastUserText;
  if (script.badjson) return '{"answer": "unterminated';
  if (script.json) return JSON.stringify({ answer: cut, ok: true });
  const base = `Echo: ${cut}`;
  if (script.long) return Array.from({ length: 20 }, (_, i) => `${base} [${i + 1}]`).join(' ');
  return base;
}

/** Splits text into n roughly equal chunks (at least 1) for streaming. */
export function chunkText(text: string, n: number): string[] {
  if (text.length === 0) return [''];
  const parts = Math.max(1, Math.min(n, text.length));
  const size = Math.ceil(text.length / parts);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Deterministic pseudo-random unit vector of length n, seeded by the text. */
export function embedText(text: string, n: number): number[] {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  const v = new Array<number>(n);
  let norm = 0;
  for (let i = 0; i < n; i++) {
    h = Math.imul(h ^ (h >>> 15), 2246822507) ^ i;
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    const x = ((h >>> 0) / 4294967296) * 2 - 1;
    v[i] = x;
    norm += x * x;
  }
  const s = 1 / Math.sqrt(norm || 1);
  for (let i = 0; i < n; i++) v[i] = Math.round(v[i] * s * 1e6) / 1e6;
  return v;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
