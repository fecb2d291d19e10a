// The transport: the one place that talks to upstreams. Calls go out on shared keep-alive pools
// (pools.ts, one Agent per lane, one pool per origin) with timeouts and abort propagation, and come
// back either as a chat answer read through the lean dispatch path (dispatch.ts: the hot path) or as
// an answer handed back unread (`sendStreamed`: JSON, multipart and raw pass-through calls whose body
// is piped, streamed or forwarded as it came). The two stream framings are turned into records here.
// Only the transport may import undici (test/architecture.test.ts).
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { CallSignal } from '../ir/call-signal.ts';
import type { UpstreamErrorInfo } from '../ir/types.ts';
import type { HttpHeaders } from '../util/http-headers.ts';
import { Utf8Stream } from '../util/utf8-stream.ts';
import { EventStreamDecoder } from './bedrock/eventstream.ts';
import type { UpstreamAnswer } from './capabilities.ts';
import { dispatchRequest } from './dispatch.ts';
import { type Lane, laneAgent, request, undiciErrors } from './pools.ts';
import type { HttpMethod, HttpRequestSpec, StreamFraming, UpstreamEvent } from './types.ts';

export { quoted } from './multipart.ts';
export { type Agent, guardedFetch, ownAgent, request } from './pools.ts';

const agent = laneAgent('chat');

export interface UpstreamResponse {
  status: number;
  headers: HttpHeaders;
  body: AsyncIterable<Buffer> & { text(): Promise<string>; dump(): Promise<void> };
}

export interface SendOptions {
  signal?: CallSignal;
  /** Deadlines of this call; see `Deadlines`. */
  deadlines?: Deadlines;
}

/** How long an upstream may take: until its response starts, and between two body chunks. */
export interface Deadlines {
  headersMs: number;
  idleMs: number;
}

/** Raised when the upstream could not be reached or timed out; carries the normalized error. */
export class UpstreamTransportError extends Error {
  constructor(readonly info: UpstreamErrorInfo) {
    super(info.message);
  }
}

export async function sendUpstream(spec: HttpRequestSpec, opts: SendOptions = {}): Promise<UpstreamResponse> {
  try {
    // Fields named one by one: spreading the spec copied it through the slow generic path per call.
    return await dispatchRequest(agent, {
      url: spec.url,
      method: spec.method,
      headers: spec.headers,
      body: spec.body,
      signal: opts.signal,
      headersTimeout: opts.deadlines?.headersMs,
      bodyTimeout: opts.deadlines?.idleMs,
    });
  } catch (err) {
    throw new UpstreamTransportError(transportError(err, opts.signal));
  }
}

/** One call whose answer is handed back unread; every lane but chat, which has `sendUpstream`. */
export interface StreamedRequest {
  lane: Exclude<Lane, 'chat'>;
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  /** A Readable is streamed (a multipart upload with its exact Content-Length in `headers`). */
  body?: string | Uint8Array | Readable | null;
  signal?: CallSignal;
  /** This call's body deadline, when it differs from the lane's. */
  bodyTimeout?: number;
}

/** One upstream call; an answer of any status is returned, only a call that got none throws. */
export async function sendStreamed(req: StreamedRequest): Promise<UpstreamAnswer> {
  try {
    const res = await request(req.url, {
      dispatcher: laneAgent(req.lane),
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: req.signal,
      ...(req.bodyTimeout === undefined ? {} : { bodyTimeout: req.bodyTimeout }),
    });
    return { status: res.statusCode, headers: res.headers, body: res.body };
  } catch (err) {
    throw new UpstreamTransportError(transportError(err, req.signal));
  }
}

/** The answer's content type (the first, if repeated), or `fallback` when it names none. */
export function contentTypeOf(answer: { headers: IncomingHttpHeaders }, fallback = 'application/json'): string {
  const ct = answer.headers['content-type'];
  return (Array.isArray(ct) ? ct[0] : ct) ?? fallback;
}

/** Maps a thrown transport error to the normalized shape: aborted-by-deadline is a 504, the rest 502. */
export function transportError(err: unknown, signal?: CallSignal): UpstreamErrorInfo {
  const reason = signal?.aborted ? signal.reason : undefined;
  if (
    isTimeout(reason) ||
    isTimeout(err) ||
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError
  ) {
    return { status: 504, kind: 'timeout', message: 'upstream timed out', retryable: true };
  }
  return { status: 502, kind: 'network', message: `upstream unreachable: ${networkCause(err)}`, retryable: true };
}

/** What went wrong on the network, in words that hold for any caller. */
const NETWORK_CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connect timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed while sending',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
};

/**
 * The cause without the address: a network error's text names the host and port it tried
 * (`connect ECONNREFUSED 10.0.3.7:8443`), and this message reaches project keys, which have no
 * business learning the organization's internal host names. The code is enough to act on.
 */
function networkCause(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code ?? (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (typeof code !== 'string') return 'network error';
  return `${NETWORK_CAUSES[code] ?? 'network error'} (${code})`;
}

function isTimeout(e: unknown): boolean {
  return (
    e instanceof Error && (e.name === 'TimeoutError' || (e as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT')
  );
}

/** Splits upstream body bytes into stream records synchronously, whatever the framing. */
export interface RecordSplitter {
  /** Records completed by this chunk, in order. */
  push(chunk: Buffer): UpstreamEvent[];
  /** Records completed by the end of the body (an SSE event without its final blank line). */
  end(): UpstreamEvent[];
}

export function recordSplitter(framing: StreamFraming): RecordSplitter {
  if (framing !== 'sse') {
    const decoder = new EventStreamDecoder();
    return { push: (chunk) => decoder.push(chunk), end: () => [] };
  }
  let pending: UpstreamEvent[] = [];
  const parser = createParser({
    onEvent(msg: EventSourceMessage) {
      pending.push(msg.event ? { event: msg.event, data: msg.data } : { data: msg.data });
    },
  });
  const decoder = new Utf8Stream();
  const take = (): UpstreamEvent[] => {
    const out = pending;
    pending = [];
    return out;
  };
  return {
    push(chunk) {
      parser.feed(decoder.write(chunk));
      return take();
    },
    end() {
      parser.feed('\n\n');
      return take();
    },
  };
}

/** Turns an upstream body into stream records, whatever its framing. */
export async function* upstreamEvents(
  body: AsyncIterable<Buffer>,
  framing: StreamFraming,
): AsyncGenerator<UpstreamEvent> {
  const splitter = recordSplitter(framing);
  for await (const chunk of body) yield* splitter.push(chunk);
  yield* splitter.end();
}
