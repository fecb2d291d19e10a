// A webhook receiver on loopback for tests: records every POST (headers, body, time) and answers
// with whatever `answer` says, so a test can script outages, slow answers and recoveries.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Answer = (req: Received, index: number) => number | { status: number; body?: string; delayMs?: number };

export interface Receiver {
  url: string;
  received: Received[];
  answer: Answer;
  /** Requests being answered right now, by webhook-id: more than one at a time is a double delivery. */
  maxInFlightPerId: number;
  close(): Promise<void>;
}

export async function startReceiver(answer: Answer = () => 200, port = 0): Promise<Receiver> {
  const inFlight = new Map<string, number>();
  const r: Receiver = { url: '', received: [], answer, maxInFlightPerId: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const rec: Received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      const index = r.received.push(rec) - 1;
      const id = String(req.headers['webhook-id'] ?? '');
      inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
      r.maxInFlightPerId = Math.max(r.maxInFlightPerId, inFlight.get(id) ?? 0);
      const a = r.answer(rec, index);
      const spec = typeof a === 'number' ? { status: a } : a;
      if (spec.delayMs) await sleep(spec.delayMs);
      inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
      res.writeHead(spec.status, { 'content-type': 'text/plain' });
      res.end(spec.body ?? `answer ${spec.status}`);
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

export interface VerifiedEvent {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** Verifies a received delivery with the official `standardwebhooks` library (throws when it fails). */
export function verifyDelivery(secret: string, r: Received): VerifiedEvent {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) if (typeof v === 'string') headers[k] = v;
  return new Webhook(secret).verify(r.body, headers) as VerifiedEvent;
}
