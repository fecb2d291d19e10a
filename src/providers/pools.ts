// The one place an undici Agent is made. A lane is one Agent, that is one keep-alive pool per origin,
// shared by every vendor that sends that kind of call. Lanes stay apart because their deadlines and
// connection caps differ on purpose: a minutes-long upload or a batch results download must neither
// hold a chat call's socket nor inherit a chat call's deadlines. The options are the ones each call
// kind had before the transport was shared (issue 31), so pooling behaviour is unchanged.

import { createRequire } from 'node:module';
import type { LookupFunction } from 'node:net';
import type { Agent as AgentClass, Dispatcher, RequestInit as UndiciRequestInit } from 'undici';
import { createSafeLookup, type SafeLookupOptions } from '../util/address-policy.ts';

// undici's entry module loads all of undici (fetch, WebSocket, EventSource, the cache stores, the
// mocks: 100 modules, 1.6 MB of source kept in the heap; 8 MB of resident memory in a bare process,
// 3 MB of heap in the gateway) for parts the gateway never uses on its own. Only the client side is
// loaded, from the files the entry module itself requires, so the classes are the very same ones;
// fetch comes from the entry module on the first call that needs it (the MCP client transports).
const loadUndici = createRequire(import.meta.url);
const Agent: typeof AgentClass = loadUndici('undici/lib/dispatcher/agent.js');
type Agent = AgentClass;
const dispatcherRequest: (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData> =
  loadUndici('undici/lib/api/api-request.js');
const { parseURL }: { parseURL(url: string): URL } = loadUndici('undici/lib/core/util.js');
/** undici's error classes (`HeadersTimeoutError`, ...), the same ones its entry module exports. */
export const undiciErrors: typeof import('undici').errors = loadUndici('undici/lib/core/errors.js');

export type { Agent };

/** What undici's `request(url, opts)` takes, with the dispatcher always named (no global one is used). */
export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher };

/** undici's `request(url, opts)`: the URL checked and split the same way, then sent on `opts.dispatcher`. */
export function request(url: string, opts: RequestOptions): Promise<Dispatcher.ResponseData> {
  const u = parseURL(url);
  const path = u.search ? `${u.pathname}${u.search}` : u.pathname;
  return dispatcherRequest.call(opts.dispatcher, { ...opts, origin: u.origin, path });
}

/** An Agent outside the lanes, for a caller with its own deadlines and address policy (webhook receivers). */
export function ownAgent(options: AgentClass.Options): Agent {
  return new Agent(options);
}

export type Lane = 'chat' | 'passthrough' | 'files' | 'batches';

/** Per lane: connections per origin, keep-alive, and the default deadlines a call may override. */
export const LANE_OPTIONS: Readonly<Record<Lane, Readonly<AgentClass.Options>>> = {
  chat: {
    connections: 256,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    // Upstream answers can take minutes (long generations); per-call deadlines come from the caller.
    headersTimeout: 600_000,
    bodyTimeout: 600_000,
  },
  // The Responses API, images and audio: image generation and long speech can take minutes.
  passthrough: { connections: 128, keepAliveTimeout: 30_000, headersTimeout: 300_000, bodyTimeout: 300_000 },
  // Large uploads are answered only once the upstream has them whole; downloads may pause a while.
  files: { connections: 64, keepAliveTimeout: 30_000, headersTimeout: 600_000, bodyTimeout: 600_000 },
  // Few and rare; the long body deadline is for a results stream, shorter ones are set per call.
  batches: { connections: 16, keepAliveTimeout: 30_000, headersTimeout: 120_000, bodyTimeout: 600_000 },
};

const agents = new Map<Lane, Agent>();

/**
 * Every upstream connection resolves its host through the address policy's always-refused part
 * (link-local and cloud metadata addresses). A base_url is checked when it is written, but its name
 * may resolve elsewhere later (DNS rebinding); only new connections pay for the check. Private and
 * loopback addresses are refused, when SWITCHYARD_DENY_PRIVATE_ADDRESSES asks for it, where a
 * base_url is written and where its key is checked: the pools are per process and shared by every
 * gateway in it, so they hold no per-gateway setting.
 */
export function upstreamLookup(resolve?: LookupFunction): LookupFunction {
  return createSafeLookup({ denyPrivate: false, lookup: resolve });
}

const lookup = upstreamLookup();

/** The lane's Agent, made on first use and kept for the life of the process. */
export function laneAgent(lane: Lane): Agent {
  let agent = agents.get(lane);
  if (agent === undefined) {
    agent = new Agent({ ...LANE_OPTIONS[lane], connect: { lookup } });
    agents.set(lane, agent);
  }
  return agent;
}

/**
 * A fetch on an Agent of its own whose sockets resolve through the address policy, for SDKs that take
 * a fetch (the MCP client transports). Its own Agent because the policy is per gateway, not per
 * process; no socket deadlines, because those SDKs keep notification streams open and bound each
 * request themselves. `close` ends its sockets.
 */
export function guardedFetch(policy: SafeLookupOptions): {
  fetch(url: string | URL, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
} {
  const agent = new Agent({ connect: { lookup: createSafeLookup(policy) }, headersTimeout: 0, bodyTimeout: 0 });
  return {
    // undici and the DOM lib declare the same WHATWG fetch types apart; the values are the same.
    fetch: async (url, init) => {
      const { fetch } = await import('undici');
      return (await fetch(url, { ...(init as UndiciRequestInit), dispatcher: agent })) as unknown as Response;
    },
    close: () => agent.close(),
  };
}
