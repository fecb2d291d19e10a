// One delivery attempt over HTTP: POST the body with its headers, wait at most the timeout for the
// whole exchange, keep the first 4 KB of the answer. Connections go through an agent whose DNS
// lookup refuses forbidden addresses, so a hostname that resolves (or later re-resolves) to a
// metadata or private address is never dialled. Redirects are not followed: a 3xx is a failure.
import { type Agent, ownAgent, request } from '../providers/http.ts';
import { gatewayVersion } from '../util/version.ts';
import { createSafeLookup, type UrlPolicyOptions } from './url-policy.ts';

export const ATTEMPT_TIMEOUT_MS = 10_000;
export const KEPT_RESPONSE_BYTES = 4096;

export interface AttemptResult {
  /** Null when no answer came (refused, timed out, reset). */
  status: number | null;
  /** The first KEPT_RESPONSE_BYTES of the answer, as text. */
  body: string | null;
  error: string | null;
  durationMs: number;
}

export interface SenderOptions extends UrlPolicyOptions {
  timeoutMs?: number;
}

export class WebhookSender {
  readonly #agent: Agent;
  readonly #timeoutMs: number;
  readonly userAgent = `Switchyard-Webhooks/${gatewayVersion()}`;

  constructor(opts: SenderOptions) {
    this.#timeoutMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.#agent = ownAgent({
      connect: { lookup: createSafeLookup({ denyPrivate: opts.denyPrivate }), timeout: this.#timeoutMs },
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
      // Receivers are many and mostly idle between events; do not hold sockets open for them.
      keepAliveTimeout: 4_000,
    });
  }

  async post(url: string, headers: Record<string, string>, body: string, signal?: AbortSignal): Promise<AttemptResult> {
    const started = performance.now();
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    const abort = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const elapsed = () => performance.now() - started;
    try {
      const res = await request(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': this.userAgent },
        body,
        dispatcher: this.#agent,
        signal: abort,
      });
      const kept = await readPrefix(res.body, KEPT_RESPONSE_BYTES);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return {
        status: res.statusCode,
        body: kept,
        error: ok ? null : `receiver answered ${res.statusCode}`,
        durationMs: elapsed(),
      };
    } catch (err) {
      const timedOut = deadline.aborted;
      return {
        status: null,
        body: null,
        error: timedOut ? `no answer within ${this.#timeoutMs} ms` : describe(err),
        durationMs: elapsed(),
      };
    }
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

/** Reads at most `limit` bytes, then drops the rest of the stream (a receiver may answer with megabytes). */
async function readPrefix(stream: AsyncIterable<Buffer> & { destroy(): void }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) break;
    }
  } finally {
    stream.destroy();
  }
  // Cut on bytes, then decode leniently: a multi-byte character split at the limit becomes U+FFFD.
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${typeof code === 'string' ? `${code} ` : ''}${err.message}${cause}`.slice(0, 1000);
}
