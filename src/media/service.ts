// Images and audio passed through to OpenAI-wire upstreams: /images/generations (openai,
// azure-openai, together, fireworks), /audio/speech (bytes streamed back with the upstream's
// content type), /audio/transcriptions and /audio/translations (multipart in, the upstream's answer
// out). Each is one pipeline call: hooks, routing, failover, one log row with its catalog cost.
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors/gateway-error.ts';
import type { CallSignal } from '../ir/call-signal.ts';
import type { Principal } from '../live/principals.ts';
import type { RoutedTarget } from '../pipeline/call.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import {
  asRawReply,
  finishRaw,
  type RawCallResult,
  type RawCallSpec,
  type RawReply,
  type RawServed,
  rawInput,
  refuseRaw,
  runRawCall,
} from '../pipeline/raw-call.ts';
import type { MediaOperation, UpstreamAnswer } from '../providers/capabilities.ts';
import { formatCostHeader } from '../providers/catalog/cost.ts';
import { imageCost, speechCost, transcriptionCost } from '../providers/catalog/media.ts';
import { contentTypeOf, quoted } from '../providers/http.ts';
import { mediaApi } from '../providers/registry.ts';
import type { VendorId } from '../providers/types.ts';
import { asNumber, asRecord, fromJsonText, isRecord } from '../util/json.ts';

const IMAGE_VENDORS: readonly VendorId[] = ['openai', 'azure-openai', 'together', 'fireworks'];
const AUDIO_VENDORS: readonly VendorId[] = ['openai', 'azure-openai'];

export interface MediaCaller {
  principal: Principal;
  requestId: string;
  headers: IncomingHttpHeaders;
  signal: CallSignal;
  rawBody?: string;
}

/** A received multipart form: its text fields in order, and the one `file` part held whole. */
export interface AudioForm {
  fields: Array<[string, string]>;
  file: { filename: string; contentType: string; data: Buffer } | undefined;
}

function invalid(message: string, param: string): GatewayError {
  return new GatewayError('invalid_request', { message, param });
}

/** The form again, for the upstream: the same fields with the upstream's model name, then the file. */
export function encodeForm(form: AudioForm, model: string): { body: Buffer; type: string } {
  const boundary = `----switchyard${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of form.fields) {
    const v = name === 'model' ? model : value;
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${v}\r\n`));
  }
  const file = form.file;
  if (file !== undefined) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(file.filename)}"\r\n` +
          `Content-Type: ${file.contentType.replace(/[\r\n]/g, '')}\r\n\r\n`,
      ),
      file.data,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

/** Seconds of audio an answer reports: `usage.seconds` (json), or `duration` (verbose_json). */
function audioSeconds(obj: unknown): number | undefined {
  if (!isRecord(obj)) return undefined;
  const usage = asRecord(obj.usage);
  return asNumber(usage.seconds) ?? asNumber(obj.duration);
}

export class Media {
  readonly #pipeline: PipelineDeps;

  constructor(pipeline: PipelineDeps) {
    this.#pipeline = pipeline;
  }

  /** The upstream's answer text as it came, priced; the log row is written once the caller has it. */
  #answered(served: RawServed, costUsd: number, text: string): RawReply {
    const { parts, answer, call } = served;
    parts.status = answer.status;
    parts.costUsd = costUsd;
    return {
      kind: 'json',
      status: answer.status,
      headers: {
        ...served.headers,
        'content-type': contentTypeOf(answer, 'application/octet-stream'),
        'x-svc-cost-usd': formatCostHeader(costUsd),
      },
      body: text,
      done: () => finishRaw(this.#pipeline, call, parts),
    };
  }

  #send(
    t: RoutedTarget,
    path: MediaOperation,
    body: Buffer | string,
    type: string,
    signal: CallSignal,
  ): Promise<UpstreamAnswer> {
    return mediaApi(t.vendor).send(t.credential, t.model, path, body, type, signal);
  }

  /** A JSON-bodied call: the caller's body (an object, else empty) sent to `path` with the routed model. */
  #runJson(
    c: MediaCaller,
    body: unknown,
    path: MediaOperation,
    spec: Omit<RawCallSpec, 'send' | 'maskable'>,
  ): Promise<RawCallResult> {
    const b = isRecord(body) ? body : {};
    return runRawCall(
      rawInput(c, body),
      {
        ...spec,
        maskable: true,
        send: (t, signal, mask) =>
          this.#send(t, path, mask(JSON.stringify({ ...b, model: t.model })), 'application/json', signal),
      },
      this.#pipeline,
    );
  }

  async images(c: MediaCaller, body: unknown): Promise<RawReply> {
    const b = isRecord(body) ? body : {};
    // The upstream's own default when the caller names no model.
    const model = typeof b.model === 'string' ? b.model : 'dall-e-2';
    const result = await this.#runJson(c, body, '/images/generations', {
      requestType: 'image_generation',
      model,
      vendors: IMAGE_VENDORS,
      what: 'images API',
      promptText: typeof b.prompt === 'string' ? b.prompt : '',
    });
    if (!result.ok) return asRawReply(result.reply);
    const { parts, target, answer } = result;
    const text = await answer.body.text();
    const obj = fromJsonText(text);
    const data = isRecord(obj) && Array.isArray(obj.data) ? obj.data : [];
    const u = asRecord(isRecord(obj) ? obj.usage : undefined);
    const usage =
      asNumber(u.input_tokens) !== undefined
        ? { input: asNumber(u.input_tokens) ?? 0, output: asNumber(u.output_tokens) ?? 0 }
        : undefined;
    const bill = {
      n: data.length,
      size: typeof b.size === 'string' ? b.size : undefined,
      quality: typeof b.quality === 'string' ? b.quality : undefined,
      usage,
    };
    const price = this.#pipeline.live.priceOverride(c.principal.orgId, target.vendor, target.model);
    const costUsd = imageCost(target.vendor, target.model, bill, price) ?? 0;
    if (usage) parts.usage = usage;
    // Base64 images are large and say nothing the request does not: the row keeps their count.
    parts.responseBody = { images: data.length };
    // A `revised_prompt` may repeat what was masked in the prompt.
    return this.#answered(result, costUsd, result.restore ? result.restore.text(text, true) : text);
  }

  async speech(c: MediaCaller, body: unknown): Promise<RawReply> {
    const b = isRecord(body) ? body : {};
    const model = typeof b.model === 'string' ? b.model : '';
    const text = typeof b.input === 'string' ? b.input : '';
    const result = await this.#runJson(c, body, '/audio/speech', {
      requestType: 'audio_speech',
      model,
      vendors: AUDIO_VENDORS,
      what: 'audio API',
      promptText: text,
    });
    if (!result.ok) return asRawReply(result.reply);
    const { parts, target, answer, call } = result;
    const costUsd = speechCost(target.vendor, target.model, text.length) ?? 0;
    parts.costUsd = costUsd;
    parts.usage = { input: text.length, output: 0 };
    let bytes = 0;
    async function* counted(src: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
      for await (const chunk of src) {
        bytes += chunk.byteLength;
        yield chunk;
      }
    }
    return {
      kind: 'pipe',
      status: answer.status,
      headers: {
        ...result.headers,
        'content-type': contentTypeOf(answer, 'application/octet-stream'),
        'x-svc-cost-usd': formatCostHeader(costUsd),
      },
      body: counted(answer.body),
      done: (finished) => {
        parts.status = finished ? answer.status : 499;
        parts.responseBody = { content_type: contentTypeOf(answer, 'application/octet-stream'), bytes };
        finishRaw(this.#pipeline, call, parts);
      },
    };
  }

  /** Transcriptions and translations: the same form, two paths. */
  async transcribe(c: MediaCaller, form: AudioForm, op: 'transcriptions' | 'translations'): Promise<RawReply> {
    const model = form.fields.find(([k]) => k === 'model')?.[1] ?? '';
    const described = {
      ...Object.fromEntries(form.fields),
      file: form.file ? { filename: form.file.filename, bytes: form.file.data.length } : null,
    };
    const requestType = op === 'transcriptions' ? 'audio_transcription' : 'audio_translation';
    const input = rawInput(c, described);
    input.rawBody = undefined;
    if (form.file === undefined) {
      return refuseRaw(input, requestType, invalid("Missing required parameter: 'file'.", 'file'), this.#pipeline);
    }
    const result = await runRawCall(
      input,
      {
        requestType,
        model,
        vendors: AUDIO_VENDORS,
        what: 'audio API',
        promptText: '',
        maskable: false,
        send: (t, signal) => {
          const { body, type } = encodeForm(form, t.model);
          return this.#send(t, `/audio/${op}`, body, type, signal);
        },
      },
      this.#pipeline,
    );
    if (!result.ok) return asRawReply(result.reply);
    const { parts, target, answer } = result;
    const text = await answer.body.text();
    const obj = fromJsonText(text);
    const seconds = audioSeconds(obj);
    const costUsd = seconds === undefined ? 0 : (transcriptionCost(target.vendor, target.model, seconds) ?? 0);
    parts.responseBody = obj ?? text.slice(0, 4096);
    return this.#answered(result, costUsd, text);
  }
}
