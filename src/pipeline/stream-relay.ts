// Relays an opened upstream stream to the caller: record by record for same-family pass-through,
// through the adapter's stream decoder and the family's stream encoder otherwise. Never buffers the
// whole body; a broken upstream ends the caller's stream with an error record, never a hang.
import { AlphaStreamEncoder, PassthroughToolAccumulator } from '../families/alpha/codec/stream-encoder.ts';
import { BetaStreamEncoder } from '../families/beta/codec/stream-encoder.ts';
import type { StopReason, StreamEvent, UpstreamErrorInfo, Usage } from '../ir/types.ts';
import { recordSplitter, transportError } from '../providers/http.ts';
import type { ChatAdapter, StreamFraming, Target, UpstreamEvent } from '../providers/types.ts';
import type { ChatCall } from './chat-attempt.ts';
import { type PassthroughState, passthroughAlphaRecord, passthroughBetaRecord } from './passthrough-records.ts';

export interface StreamSink {
  write(chunk: string): boolean;
  drain(): Promise<void>;
}

export interface StreamSummary {
  usage: Usage;
  stopReason?: StopReason;
  text: string;
  error?: UpstreamErrorInfo;
  /** Milliseconds from relay start to the first record written. */
  firstByteMs?: number;
  aborted: boolean;
}

export interface StreamRelay {
  run(sink: StreamSink, signal: AbortSignal): Promise<StreamSummary>;
}

interface RelayInput {
  call: ChatCall;
  adapter: ChatAdapter;
  target: Target;
  passthrough: boolean;
  body: AsyncIterable<Buffer> & { dump(): Promise<void> };
  framing: StreamFraming;
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
      // Records are written as they are produced and awaited only when the socket asks to drain, so
      // an upstream read costs one await, not one per record.
      let blocked = false;
      const emit = (chunks: string[]): void => {
        for (const c of chunks) {
          if (summary.firstByteMs === undefined) summary.firstByteMs = performance.now() - started;
          if (!sink.write(c)) blocked = true;
        }
      };
      const process = makeProcessor(input, summary);
      const splitter = recordSplitter(input.framing);
      try {
        for await (const chunk of input.body) {
          if (signal.aborted) break;
          for (const ev of splitter.push(chunk)) emit(process.push(ev));
          if (blocked) {
            blocked = false;
            await sink.drain();
          }
        }
        if (!signal.aborted) {
          for (const ev of splitter.end()) emit(process.push(ev));
          emit(process.end());
        }
      } catch (err) {
        if (!signal.aborted) {
          const info = transportError(err);
          emit(process.fail({ ...info, message: `upstream stream broke: ${info.message}` }));
        }
      }
      if (signal.aborted) {
        summary.aborted = true;
        input.body.dump().catch(() => {});
      }
      return summary;
    },
  };
}

interface Processor {
  push(ev: UpstreamEvent): string[];
  end(): string[];
  fail(error: UpstreamErrorInfo): string[];
}

function makeProcessor(input: RelayInput, summary: StreamSummary): Processor {
  const { call } = input;
  if (input.passthrough) {
    const state: PassthroughState = {
      summary,
      callerWantsUsage: call.includeUsage,
      tools: new PassthroughToolAccumulator(),
      sawTerminal: false,
    };
    const record = call.family === 'alpha' ? passthroughAlphaRecord : passthroughBetaRecord;
    return {
      push: (ev) => record(state, ev),
      end: () => (call.family === 'alpha' ? state.tools.end().map((c) => `data: ${JSON.stringify(c)}\n\n`) : []),
      fail: (error) => {
        summary.error = error;
        return [call.family === 'alpha' ? alphaErrorRecord(error) : betaErrorRecord(error)];
      },
    };
  }
  const decoder = input.adapter.newStreamDecoder(input.target);
  const encoder =
    call.family === 'alpha'
      ? new AlphaStreamEncoder({
          id: `chatcmpl-${call.requestId.slice(4)}`,
          model: input.target.model,
          created: call.created,
          includeUsage: call.includeUsage,
        })
      : new BetaStreamEncoder({ id: `msg_${call.requestId.slice(4)}`, model: input.target.model });
  const translate = (events: StreamEvent[]): string[] => {
    const out: string[] = [];
    for (const e of events) {
      observe(summary, e);
      for (const s of encoder.push(e)) out.push(s);
    }
    return out;
  };
  return {
    push: (ev) => translate(decoder.push(ev)),
    end: () => {
      const out = translate(decoder.end());
      for (const s of encoder.end()) out.push(s);
      return out;
    },
    fail: (error) => {
      const out = translate([{ type: 'error', error }]);
      for (const s of encoder.end()) out.push(s);
      return out;
    },
  };
}

export function alphaErrorRecord(error: UpstreamErrorInfo): string {
  return `data: ${JSON.stringify({ error: { message: error.message, type: 'api_error', param: null, code: error.code ?? null } })}\n\n`;
}

export function betaErrorRecord(error: UpstreamErrorInfo): string {
  const type = error.kind === 'overloaded' ? 'overloaded_error' : 'api_error';
  return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message: error.message } })}\n\n`;
}
