// A lingering close, as nginx does it: when the gateway answers before it has read the whole
// request body (503 server_busy, 413, 401 on an upload), it keeps reading and discarding the rest
// for a bounded time and size. Closing at once would leave unread bytes in the socket's receive
// buffer, the kernel then sends RST, and a client still uploading gets EPIPE or ECONNRESET and
// never reads the answer. Nothing is kept: chunks are dropped as they arrive, so memory stays flat.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface LingerLimits {
  /** Bytes of an unwanted body read before the connection is cut anyway. */
  maxBytes: number;
  /** Time after the answer until the connection is cut anyway (nginx's lingering_time is 30 s). */
  maxMs: number;
}

export const DEFAULT_LINGER_MS = 30_000;

/**
 * Reads the rest of `req` into nowhere. Once the body is complete the connection stays open for
 * the next request (keep-alive); past either limit it is destroyed, since a client still sending
 * by then has had its answer for a long time.
 */
export function discardRest(req: IncomingMessage, limits: LingerLimits, lingering?: Set<Socket>): void {
  if (req.complete || req.destroyed) return;
  const socket = req.socket;
  lingering?.add(socket);
  let seen = 0;
  const cut = (): void => {
    stop();
    socket.destroy();
  };
  const timer = setTimeout(cut, limits.maxMs);
  timer.unref();
  const onData = (chunk: Buffer): void => {
    seen += chunk.length;
    if (seen > limits.maxBytes) cut();
  };
  const stop = (): void => {
    clearTimeout(timer);
    req.off('data', onData);
    lingering?.delete(socket);
  };
  req.on('data', onData);
  req.once('end', stop);
  req.once('close', stop);
  req.resume();
}

/**
 * Every answer sent while its request body is still arriving lingers. fastify marks such answers
 * `connection: close` (its body parser gave up on the body); the header is dropped, because Node
 * destroys a `close` connection as soon as the answer is written, which is the RST this avoids.
 */
export function registerLingeringClose(app: FastifyInstance, limits: LingerLimits): void {
  const lingering = new Set<Socket>();
  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload, done) => {
    const req = request.raw;
    if (!req.complete && !req.destroyed) {
      if (reply.hasHeader('connection')) reply.removeHeader('connection');
      discardRest(req, limits, lingering);
    }
    done(null, payload);
  });
  // Their answers are out; a shutdown does not wait the linger time for their uploads to end.
  app.addHook('preClose', (done) => {
    for (const socket of lingering) socket.destroy();
    lingering.clear();
    done();
  });
}
