// Binary application/vnd.amazon.eventstream frames, encoded with the smithy codec (valid CRCs).
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { FakeContext } from '../context.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const str = (value: string) => ({ type: 'string' as const, value });

export function eventFrame(eventType: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: { ':event-type': str(eventType), ':content-type': str('application/json'), ':message-type': str('event') },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

export function exceptionFrame(exceptionType: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': str(exceptionType),
      ':content-type': str('application/json'),
      ':message-type': str('exception'),
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

/** Starts a 200 eventstream response and returns a frame writer. */
export function startEventStream(ctx: FakeContext, headers: Record<string, string> = {}) {
  ctx.res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', ...headers });
  return {
    write(frame: Uint8Array) {
      if (!ctx.res.destroyed && !ctx.res.writableEnded) ctx.res.write(frame);
    },
    end() {
      if (!ctx.res.writableEnded) ctx.res.end();
    },
  };
}
