// A budget for request bytes in flight across the whole process, and an idle timeout for request
// bodies. A request with a content-length reserves it before its body is read and gives it back
// when its response is done; one that does not fit is answered 503 with retry-after at once, so a
// burst of large bodies queues at the client instead of growing this process's memory (the body it
// is still sending is read and dropped, linger.ts, so the client can read that answer). A chunked
// body declares nothing: it is counted as it arrives, so a slow sender holds only what it sent, not
// the largest body it might send. Either kind is cut when it pauses longer than the idle timeout,
// so a sender trickling a byte now and then cannot hold its connection and its share for ever.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendCode } from './errors.ts';

/** Bodies this small are not counted: connections bound them, and most calls are this size. */
export const UNCOUNTED_BYTES = 64 * 1024;

export interface BodyLimits {
  budgetBytes: number;
  maxBodyBytes: number;
  idleMs: number;
}

/**
 * Calls `onChunk` with the size of every body chunk the HTTP parser hands `req`, whoever reads it
 * (the JSON parser, the multipart reader) and without changing how it is read: the parser delivers
 * body bytes through `push`, and a 'data' listener here would start the stream flowing before its
 * reader is attached.
 */
function onBodyChunks(req: IncomingMessage, onChunk: (bytes: number) => void): void {
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk !== null && (typeof chunk === 'string' || chunk instanceof Uint8Array)) onChunk(chunk.length);
    return push(chunk, encoding);
  };
}

/** Closes the connection when the body pauses longer than `idleMs`; every chunk restarts the clock. */
function cutWhenIdle(req: IncomingMessage, idleMs: number): () => void {
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => req.socket.destroy(), idleMs);
    timer.unref();
  };
  const stop = (): void => clearTimeout(timer);
  req.once('end', stop);
  req.once('close', stop);
  arm();
  return arm;
}

export function registerBodyBudget(app: FastifyInstance, limits: BodyLimits): void {
  const { budgetBytes, maxBodyBytes, idleMs } = limits;
  let inFlight = 0;
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    const method = request.raw.method;
    if (method === 'GET' || method === 'HEAD' || method === 'DELETE' || method === 'OPTIONS') {
      done();
      return;
    }
    const req = request.raw;
    const declared = Number(request.headers['content-length']);
    const chunked = !(Number.isFinite(declared) && declared >= 0);
    if (!chunked && declared <= UNCOUNTED_BYTES) {
      done();
      return;
    }
    // Armed only for a body this process will read: a refused one is drained by the lingering
    // close (linger.ts), whose own bounds apply; cutting it here would reset the client mid-upload.
    const watchIdle = (): (() => void) | undefined => (req.complete ? undefined : cutWhenIdle(req, idleMs));
    if (chunked) {
      const rearm = watchIdle();
      let arrived = 0;
      onBodyChunks(req, (n) => {
        rearm?.();
        arrived += n;
        inFlight += n;
        // Too much arriving at once for the whole process: this body stops here. Its reader
        // fails, and the connection goes with it (there is no answer to send mid-body).
        if (inFlight > budgetBytes && arrived > UNCOUNTED_BYTES) req.socket.destroy();
      });
      reply.raw.on('close', () => {
        inFlight -= arrived;
      });
      done();
      return;
    }
    const bytes = Math.min(declared, maxBodyBytes);
    if (inFlight + bytes > budgetBytes && inFlight > 0) {
      reply.header('retry-after', '1');
      sendCode(reply, 'server_busy');
      return;
    }
    inFlight += bytes;
    const rearm = watchIdle();
    if (rearm !== undefined) onBodyChunks(req, rearm);
    // 'close' fires once for finished, failed and abandoned responses alike, hijacked streams included.
    reply.raw.on('close', () => {
      inFlight -= bytes;
    });
    done();
  });
}
