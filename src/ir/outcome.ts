// What one upstream attempt produced, before anything is written to the caller: the contract between
// the routing loop (which may still fall back) and the pipeline (which encodes and sends).
import type { CallSignal } from './call-signal.ts';
import type { ChatResponse, EncodeWarning, StopReason, UpstreamErrorInfo, Usage } from './types.ts';

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
  /** The whole answer in IR form, when the call asked for it (ChatCall.collectAnswer) and the stream completed. */
  response?: ChatResponse;
}

/** An opened upstream stream, relayed to the caller's sink in the caller's family. */
export interface StreamRelay {
  run(sink: StreamSink, signal: CallSignal): Promise<StreamSummary>;
}

export interface JsonOutcome {
  ok: true;
  kind: 'json';
  /** Response body in the caller's wire shape. */
  body: Record<string, unknown>;
  /** Pass-through only: the upstream's own text of `body`, sent as-is instead of serialized again. */
  bodyText?: string;
  usage: Usage;
  stopReason: StopReason;
  /** Concatenated answer text (acceptance checks, cache). */
  text: string;
  ir?: ChatResponse;
  ttfbMs: number;
  /** What the request encoder left out or changed (translated attempts only). */
  warnings?: readonly EncodeWarning[];
}

export interface StreamOutcome {
  ok: true;
  kind: 'stream';
  relay: StreamRelay;
  ttfbMs: number;
  /** What the request encoder left out or changed (translated attempts only). */
  warnings?: readonly EncodeWarning[];
}

export interface FailedOutcome {
  ok: false;
  error: UpstreamErrorInfo;
}

export type AttemptOutcome = JsonOutcome | StreamOutcome | FailedOutcome;
