// A budget for request bytes in flight across the whole process. Each request reserves its
// declared content-length (the per-request maximum when it streams without one) before its body
// is read, and gives it back when its response is done. A request that does not fit is answered
// 503 with retry-after at once, so a burst of large bodies queues at the client instead of
// growing this process's memory; the body it is still sending is read and dropped (linger.ts), so
// the client can read that answer instead of losing it to a reset connection.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendCode } from './errors.ts';

/** Bodies this small are not counted: connections bound them, and most calls are this size. */
const UNCOUNTED_BYTES = 64 * 1024;

export function registerBodyBudget(app: FastifyInstance, budgetBytes: number, maxBodyBytes: number): void {
  let inFlight = 0;
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    const method = request.raw.method;
    if (method === 'GET' || method === 'HEAD' || method === 'DELETE' || method === 'OPTIONS') {
      done();
      return;
    }
    const declared = Number(request.headers['content-length']);
    const bytes = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, maxBodyBytes) : maxBodyBytes;
    if (bytes <= UNCOUNTED_BYTES) {
      done();
      return;
    }
    if (inFlight + bytes > budgetBytes && inFlight > 0) {
      reply.header('retry-after', '1');
      sendCode(reply, 'server_busy');
      return;
    }
    inFlight += bytes;
    // 'close' fires once for finished, failed and abandoned responses alike, hijacked streams included.
    reply.raw.on('close', () => {
      inFlight -= bytes;
    });
    done();
  });
}
