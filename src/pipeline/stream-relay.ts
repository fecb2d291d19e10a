// Relays an opened upstream stream to the caller: record by record for same-family pass-through
// (the family's PassthroughStream: the upstream's own bytes, scanned rather than parsed), through the
// adapter's stream decoder and the family's stream encoder otherwise. Never buffers the whole body; a
// broken upstream ends the caller's stream with the family's error record, the same record on both
// paths.
import { abortedByShutdown, fromUpstream } from '../errors/gateway-error.ts';
import type { PassthroughStream, StreamEncoder } from '../families/shared/codec.ts';
import type { CallSignal } from '../ir/call-signal.ts';
import type { StreamRelay, StreamSink, StreamSummary } from '../ir/outcome.ts';
import { ResponseAssembler } from '../ir/stream-assembler.ts';
import type { StreamEvent, UpstreamErrorInfo } from '../ir/types.ts';
import { recordSplitter, transportError } from '../providers/http.ts';
import { eventStreamException } from '../providers/registry.ts';
import type { ChatAdapter, StreamDecoder, Target, UpstreamEvent } from '../providers/types.ts';
import { isRecord } from '../util/json.ts';
import type { ChatCall } from './call.ts';
import type { StreamGuard, StreamGuardStep } from './guard.ts';

/** Turns upstream records into the caller's SSE text (shared by both relay paths). */
interface Processor {
  push(ev: UpstreamEvent): string;
  end(): string | Promise<string>;
  fail(error: UpstreamErrorInfo): string;
  /** After the records of one upstream read: what a guard held for the read's end. */
  endRead?(): string;
  /** Set once the processor ended the caller's stream itself (a guardrail refused the answer). */
  readonly closed?: boolean;
}

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

function newSummary(): StreamSummary {
  return { usage: { input: 0, output: 0 }, text: '', aborted: false };
}

export function openStreamRelay(input: RelayInput): StreamRelay {
  return new Relay(input);
}

class Relay implements StreamRelay {
  readonly #input: RelayInput;
  #summary: StreamSummary = newSummary();
  /**
   * The records decoded from one upstream read leave in one socket write (fewer syscalls and TCP
   * segments), and the relay awaits only when the socket asks it to drain.
   */
  #pending = '';
  #started = 0;

  constructor(input: RelayInput) {
    this.#input = input;
  }

  async run(sink: StreamSink, signal: CallSignal): Promise<StreamSummary> {
    const input = this.#input;
    const summary = newSummary();
    this.#summary = summary;
    this.#pending = '';
    this.#started = performance.now();
    const processor = makeProcessor(input, summary);
    const splitter = recordSplitter(input.adapter.streamFraming);
    try {
      for await (const chunk of input.body) {
        if (signal.aborted || processor.closed) break;
        for (const ev of splitter.push(chunk)) this.#pending += processor.push(ev);
        if (processor.endRead) this.#pending += processor.endRead();
        await this.#send(sink);
      }
      if (processor.closed) input.body.dump().catch(() => {});
      else if (!signal.aborted) {
        for (const ev of splitter.end()) this.#pending += processor.push(ev);
        const end = processor.end();
        this.#pending += typeof end === 'string' ? end : await end;
        await this.#send(sink);
      }
    } catch (err) {
      if (!signal.aborted) {
        const info = transportError(err);
        this.#pending += processor.fail({ ...info, message: `upstream stream broke: ${info.message}` });
        await this.#send(sink);
      }
    }
    if (abortedByShutdown(signal)) {
      // The caller is still there: end its stream with an error record rather than silence.
      this.#pending += processor.fail({
        status: 503,
        kind: 'server',
        message: 'the gateway is shutting down',
        retryable: true,
      });
      await this.#send(sink);
      input.body.dump().catch(() => {});
    } else if (signal.aborted) {
      summary.aborted = true;
      input.body.dump().catch(() => {});
    }
    return summary;
  }

  async #send(sink: StreamSink): Promise<void> {
    if (this.#pending === '') return;
    const ok = sink.write(this.#pending);
    this.#pending = '';
    // Node sends a response's first writes on the next tick, which comes once the upstream read
    // that produced them is processed: a stream whose records trickle in (any real model) has its
    // first bytes out as they arrive. Records that arrive together (a burst, as the bench's fake
    // sends) leave in one write. Waiting a tick after the first write to split them cost ~10% CPU
    // per stream in the bench, for first bytes 30-60 us earlier of an answer that was complete anyway.
    if (this.#summary.firstByteMs === undefined) this.#summary.firstByteMs = performance.now() - this.#started;
    if (!ok) await sink.drain();
  }
}

function makeProcessor(input: RelayInput, summary: StreamSummary): Processor {
  const { call } = input;
  if (!input.passthrough) return new TranslatingProcessor(input, summary, call.collectAnswer === true);
  const processor = new PassthroughProcessor(call, summary);
  // A hook that asked for this answer (collectAnswer) needs it whole, in IR form; other calls pay
  // nothing for that. The pass-through path has no IR events of its own: it decodes the upstream
  // records a second time.
  return call.collectAnswer === true ? new CollectingProcessor(processor, input, summary) : processor;
}

/**
 * The same-family relay: the family's pass-through stream, fed plain records. AWS event-stream
 * frames (Bedrock's invoke stream) are unwrapped first: each carries one native event, base64 in
 * `bytes`, and an exception frame ends the stream with the family's error record.
 */
class PassthroughProcessor implements Processor {
  readonly #call: ChatCall;
  readonly #summary: StreamSummary;
  readonly #stream: PassthroughStream;

  constructor(call: ChatCall, summary: StreamSummary) {
    this.#call = call;
    this.#summary = summary;
    this.#stream = call.codec.passthroughStream(summary, call.includeUsage);
  }

  push(ev: UpstreamEvent): string {
    if (ev.messageType === undefined) return this.#stream.push(ev.event, ev.data);
    if (ev.messageType === 'exception') return this.fail(eventStreamException(ev));
    const bytes = frameBytes(ev.data);
    return bytes === undefined ? '' : this.#stream.push(undefined, Buffer.from(bytes, 'base64').toString('utf8'));
  }

  end(): string {
    return this.#stream.end();
  }

  fail(error: UpstreamErrorInfo): string {
    this.#summary.error = error;
    return this.#call.codec.errorRecord(fromUpstream(error));
  }
}

function frameBytes(data: string): string | undefined {
  try {
    const frame: unknown = JSON.parse(data);
    return isRecord(frame) && typeof frame.bytes === 'string' ? frame.bytes : undefined;
  } catch {
    return undefined;
  }
}

/** A pass-through whose answer is also assembled in IR form, from a second decode of the records. */
class CollectingProcessor implements Processor {
  readonly #inner: PassthroughProcessor;
  readonly #decoder: StreamDecoder;
  readonly #assembler = new ResponseAssembler();
  readonly #summary: StreamSummary;

  constructor(inner: PassthroughProcessor, input: RelayInput, summary: StreamSummary) {
    this.#inner = inner;
    this.#decoder = input.adapter.newStreamDecoder(input.target);
    this.#summary = summary;
  }

  push(ev: UpstreamEvent): string {
    for (const e of this.#decoder.push(ev)) this.#assembler.push(e);
    return this.#inner.push(ev);
  }

  end(): string {
    for (const e of this.#decoder.end()) this.#assembler.push(e);
    const out = this.#inner.end();
    settle(this.#summary, this.#assembler);
    return out;
  }

  fail(error: UpstreamErrorInfo): string {
    return this.#inner.fail(error);
  }
}

/** A stream that ended without its stop event, or with an error, assembles to nothing. */
function settle(summary: StreamSummary, assembler: ResponseAssembler): void {
  const response = assembler.result();
  if (response) summary.response = response;
}

/**
 * Another family's upstream: records decoded to IR events, encoded in the caller's family. A call
 * with a guard (guard.ts) takes this path whatever the upstream: the summary and the assembled
 * answer see the model's own events (the copy kept at rest), the caller the guarded ones.
 */
class TranslatingProcessor implements Processor {
  readonly #call: ChatCall;
  readonly #summary: StreamSummary;
  readonly #decoder: StreamDecoder;
  readonly #encoder: StreamEncoder;
  readonly #assembler: ResponseAssembler | undefined;
  readonly #guard: StreamGuard | undefined;
  closed = false;

  constructor(input: RelayInput, summary: StreamSummary, collect: boolean) {
    const { call } = input;
    this.#call = call;
    this.#summary = summary;
    this.#decoder = input.adapter.newStreamDecoder(input.target);
    this.#encoder = call.codec.streamEncoder(
      { requestId: call.requestId, created: call.created, model: input.target.model },
      call.includeUsage,
    );
    this.#assembler = collect ? new ResponseAssembler() : undefined;
    this.#guard = call.guard?.openStream();
  }

  push(ev: UpstreamEvent): string {
    if (this.closed) return '';
    return this.#translate(this.#decoder.push(ev));
  }

  end(): string | Promise<string> {
    if (this.closed) return '';
    const out = this.#translate(this.#decoder.end());
    if (this.closed) return out;
    if (this.#guard) return this.#finishGuarded(this.#guard, out);
    return this.#close(out);
  }

  fail(error: UpstreamErrorInfo): string {
    if (this.closed) return '';
    this.#summary.error = error;
    // Text the guard held back and the verdicts it reached still count when the upstream breaks.
    let out = '';
    if (this.#guard) for (const e of this.#guard.broken().events) for (const x of this.#encoder.push(e)) out += x;
    this.#keepAtRest();
    return out + this.#call.codec.errorRecord(fromUpstream(error));
  }

  endRead(): string {
    return this.#guard && !this.closed ? this.#encode(this.#guard.endRead()) : '';
  }

  async #finishGuarded(guard: StreamGuard, head: string): Promise<string> {
    const step = await guard.finish();
    const out = head + this.#encode(step);
    return this.closed ? out : this.#close(out);
  }

  #close(head: string): string {
    let out = head;
    for (const s of this.#encoder.end()) out += s;
    if (this.#assembler) settle(this.#summary, this.#assembler);
    this.#keepAtRest();
    return out;
  }

  /** What is kept at rest (the log row, a stored answer): the model's answer with output matches masked, no original restored. */
  #keepAtRest(): void {
    const guard = this.#guard;
    if (!guard) return;
    const summary = this.#summary;
    summary.text = guard.atRestText(summary.text);
    if (summary.response) summary.response = guard.atRest(summary.response);
  }

  #translate(events: StreamEvent[]): string {
    let out = '';
    for (const e of events) {
      observe(this.#summary, e);
      this.#assembler?.push(e);
      if (this.#guard) {
        out += this.#encode(this.#guard.push(e));
        if (this.closed) break;
      } else for (const s of this.#encoder.push(e)) out += s;
    }
    return out;
  }

  /** Encodes what the guard let through; a refusal ends the caller's stream with the family's error record. */
  #encode(step: StreamGuardStep): string {
    let out = '';
    for (const e of step.events) for (const s of this.#encoder.push(e)) out += s;
    if (step.blocked) {
      this.closed = true;
      const e = step.blocked;
      this.#summary.error = {
        status: e.status,
        kind: 'invalid_request',
        code: e.code,
        message: e.message,
        retryable: false,
      };
      this.#keepAtRest();
      out += this.#call.codec.errorRecord(e);
    }
    return out;
  }
}
