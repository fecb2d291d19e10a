// Relays an opened upstream stream to the caller: record by record for same-family pass-through,
// through the adapter's stream decoder and the family's stream encoder otherwise. Never buffers the
// whole body; a broken upstream ends the caller's stream with the family's error record, the same
// record on both paths.
import { abortedByShutdown, fromUpstream } from '../errors/gateway-error.ts';
import type { StreamRelay, StreamSummary } from '../ir/outcome.ts';
import { ResponseAssembler } from '../ir/stream-assembler.ts';
import type { StreamEvent } from '../ir/types.ts';
import { recordSplitter, transportError } from '../providers/http.ts';
import type { ChatAdapter, Target } from '../providers/types.ts';
import type { ChatCall } from './call.ts';
import { type Processor, passthroughProcessor } from './passthrough-records.ts';

interface RelayInput {
  call: ChatCall;
  adapter: ChatAdapter;
  target: Target;
  passthrough: boolean;
  body: AsyncIterable<Buffer> & { dump(): Promise<void> };
}

/** Folds an IR event into the running summary (usage is cumulative, field by field). */
export function observe(summary: StreamSummary, ev: StreamEvent): void {
  switch (ev.type) {
    case 'start':
      if (ev.usage) Object.assign(summary.usage, ev.usage);
      break;
    case 'usage':
      Object.assign(summary.usage, ev.usage);
      break;
    case 'text_delta':
      summary.text += ev.text;
      break;
    case 'stop':
      summary.stopReason = ev.stopReason;
      break;
    case 'error':
      summary.error = ev.error;
      break;
    default:
      break;
  }
}

export function openStreamRelay(input: RelayInput): StreamRelay {
  return {
    async run(sink, signal) {
      const summary: StreamSummary = { usage: { input: 0, output: 0 }, text: '', aborted: false };
      const started = performance.now();
      // The records decoded from one upstream read leave in one socket write (fewer syscalls and
      // TCP segments), and the relay awaits only when the socket asks it to drain.
      let pending = '';
      const emit = (chunks: string[]): void => {
        for (const c of chunks) pending += c;
      };
      const send = async (): Promise<void> => {
        if (pending === '') return;
        if (summary.firstByteMs === undefined) summary.firstByteMs = performance.now() - started;
        const chunk = pending;
        pending = '';
        if (!sink.write(chunk)) await sink.drain();
      };
      const process = makeProcessor(input, summary);
      const splitter = recordSplitter(input.adapter.streamFraming);
      try {
        for await (const chunk of input.body) {
          if (signal.aborted) break;
          for (const ev of splitter.push(chunk)) emit(process.push(ev));
          await send();
        }
        if (!signal.aborted) {
          for (const ev of splitter.end()) emit(process.push(ev));
          emit(process.end());
          await send();
        }
      } catch (err) {
        if (!signal.aborted) {
          const info = transportError(err);
          emit(process.fail({ ...info, message: `upstream stream broke: ${info.message}` }));
          await send();
        }
      }
      if (abortedByShutdown(signal)) {
        // The caller is still there: end its stream with an error record rather than silence.
        emit(process.fail({ status: 503, kind: 'server', message: 'the gateway is shutting down', retryable: true }));
        await send();
        input.body.dump().catch(() => {});
      } else if (signal.aborted) {
        summary.aborted = true;
        input.body.dump().catch(() => {});
      }
      return summary;
    },
  };
}

function makeProcessor(input: RelayInput, summary: StreamSummary): Processor {
  const { call } = input;
  // A hook that asked for this answer (collectAnswer) needs it whole, in IR form; other calls pay nothing for that.
  const assembler = call.collectAnswer === true ? new ResponseAssembler() : undefined;
  if (!input.passthrough) return translatingProcessor(input, summary, assembler);
  const processor = passthroughProcessor(call.codec, summary, call.includeUsage);
  if (!assembler) return processor;
  // The pass-through path has no IR events of its own: decode the upstream records a second time.
  const decoder = input.adapter.newStreamDecoder(input.target);
  const feed = (events: StreamEvent[]): void => {
    for (const e of events) assembler.push(e);
  };
  return {
    push: (ev) => {
      feed(decoder.push(ev));
      return processor.push(ev);
    },
    end: () => {
      feed(decoder.end());
      const out = processor.end();
      settle(summary, assembler);
      return out;
    },
    fail: (error) => processor.fail(error),
  };
}

/** A stream that ended without its stop event, or with an error, assembles to nothing. */
function settle(summary: StreamSummary, assembler: ResponseAssembler): void {
  const response = assembler.result();
  if (response) summary.response = response;
}

function translatingProcessor(
  input: RelayInput,
  summary: StreamSummary,
  assembler: ResponseAssembler | undefined,
): Processor {
  const { call } = input;
  const decoder = input.adapter.newStreamDecoder(input.target);
  const encoder = call.codec.streamEncoder(
    { requestId: call.requestId, created: call.created, model: input.target.model },
    call.includeUsage,
  );
  const translate = (events: StreamEvent[]): string[] => {
    const out: string[] = [];
    for (const e of events) {
      observe(summary, e);
      assembler?.push(e);
      for (const s of encoder.push(e)) out.push(s);
    }
    return out;
  };
  return {
    push: (ev) => translate(decoder.push(ev)),
    end: () => {
      const out = translate(decoder.end());
      for (const s of encoder.end()) out.push(s);
      if (assembler) settle(summary, assembler);
      return out;
    },
    fail: (error) => {
      summary.error = error;
      return [call.codec.errorRecord(fromUpstream(error))];
    },
  };
}
