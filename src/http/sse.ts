// The only SSE writer: status and headers, coalesced socket writes, backpressure, the cost trailer
// once the relay's summary is known, and the family's error record when the relay itself throws.
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../errors/gateway-error.ts';
import type { CallSignal } from '../ir/call-signal.ts';
import type { StreamSummary } from '../ir/outcome.ts';
import type { PipelineReply } from '../pipeline/types.ts';
import { safeHeaders } from './header-value.ts';
import { requestIdHeaders } from './request-id.ts';

type StreamReply = Extract<PipelineReply, { kind: 'stream' }>;

export async function writeSse(
  raw: ServerResponse,
  reply: StreamReply,
  signal: CallSignal,
  requestId: string,
): Promise<void> {
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...safeHeaders(reply.headers),
    ...requestIdHeaders(requestId),
    trailer: 'x-svc-cost-usd',
  });
  let summary: StreamSummary;
  try {
    summary = await reply.relay.run(
      {
        // The relay already joins the records of one upstream read. (Corking the response and
        // uncorking on the next tick lost every write after the first on Node 24.)
        write: (s) => (raw.destroyed ? true : raw.write(s)),
        // A caller who hangs up never drains; 'close' ends the wait (the abort signal stops the relay).
        drain: () =>
          new Promise((resolve) => {
            const done = (): void => {
              raw.off('drain', done);
              raw.off('close', done);
              resolve();
            };
            raw.once('drain', done);
            raw.once('close', done);
          }),
      },
      signal,
    );
  } catch (err) {
    // The relay turns upstream failures into records itself; reaching here is a gateway fault, and
    // the caller still gets a well-formed end of stream.
    const message = err instanceof Error ? err.message : String(err);
    summary = {
      usage: { input: 0, output: 0 },
      text: '',
      aborted: signal.aborted,
      error: { status: 500, kind: 'server', message, retryable: false },
    };
    if (!raw.destroyed) raw.write(reply.errorRecord(new GatewayError('internal_error')));
  }
  const trailers = reply.done(summary);
  if (!raw.destroyed) {
    raw.addTrailers(safeHeaders(trailers));
    raw.end();
  }
}
