// Images generations, audio speech (bytes) and transcriptions/translations (multipart), deterministic.
import { countTokens, parseScript, sleep } from '../script.ts';
import { commonHeaders, type Route } from './env.ts';
import { invalid, scriptedFailure, sendError } from './errors.ts';
import { parseMultipart } from './multipart.ts';
import { hashHex, isRecord, nowSec, num, str } from './util.ts';

/** A valid 1x1 PNG: image bytes the SDK (and any decoder) accepts. */
const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
export const PNG_BYTES = Buffer.from(PNG_B64, 'base64');

export const handleImages: Route = async (ctx, env) => {
  const body = await ctx.json();
  if (!isRecord(body)) return sendError(ctx, invalid('We could not parse the JSON body of your request.'));
  if (env.model !== undefined) body.model = env.model;
  const prompt = str(body.prompt);
  if (prompt === undefined || prompt === '')
    return sendError(ctx, invalid("Missing required parameter: 'prompt'.", 'prompt', 'missing_required_parameter'));
  const model = str(body.model) ?? 'dall-e-2';
  const n = num(body.n) ?? 1;
  if (!Number.isInteger(n) || n < 1 || n > 10 || (model.startsWith('dall-e-3') && n !== 1))
    return sendError(ctx, invalid(`Invalid 'n': ${n} is not supported for ${model}.`, 'n', 'invalid_value'));
  const fail = scriptedFailure(parseScript(model));
  if (fail) return sendError(ctx, fail);
  // gpt-image models always answer base64; dall-e defaults to URLs
  const asUrl = !model.startsWith('gpt-image') && body.response_format !== 'b64_json';
  const data = Array.from({ length: n }, (_, i) => {
    const revised = model.startsWith('dall-e-3') ? { revised_prompt: `Revised: ${prompt}` } : {};
    if (!asUrl) return { b64_json: PNG_B64, ...revised };
    const id = hashHex(`${prompt}:${i}`);
    return { url: `${ctx.state.origin}${env.base}/__fake/images/${id}.png`, ...revised };
  });
  const usage = model.startsWith('gpt-image')
    ? { input_tokens: countTokens(prompt), output_tokens: 272 * n, total_tokens: countTokens(prompt) + 272 * n }
    : undefined;
  ctx.sendJson(200, { created: nowSec(), data, ...(usage ? { usage } : {}) }, commonHeaders());
};

/** Serves the image URLs handed out above (no auth, like a signed blob URL). */
export const handleImageBlob: Route = async (ctx) => {
  ctx.send(200, PNG_BYTES, { 'content-type': 'image/png' });
};

const AUDIO_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

/** Bytes derived from the text: an ID3 header then a repeated digest, one frame per 16 characters. */
export function speechBytes(input: string, voice: string): Buffer {
  const digest = Buffer.from(hashHex(`${voice}:${input}`), 'hex');
  const frames = Math.max(1, Math.ceil(input.length / 16));
  return Buffer.concat([
    Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'),
    ...Array.from({ length: frames }, () => digest),
  ]);
}

export const handleSpeech: Route = async (ctx, env) => {
  const body = await ctx.json();
  if (!isRecord(body)) return sendError(ctx, invalid('We could not parse the JSON body of your request.'));
  if (env.model !== undefined) body.model = env.model;
  for (const key of ['model', 'input', 'voice'])
    if (str(body[key]) === undefined)
      return sendError(ctx, invalid(`Missing required parameter: '${key}'.`, key, 'missing_required_parameter'));
  const input = String(body.input);
  if (input.length > 4096)
    return sendError(
      ctx,
      invalid(
        `Invalid 'input': string too long. Expected a string with maximum length 4096, but got a string with length ${input.length} instead.`,
        'input',
        'string_above_max_length',
      ),
    );
  const format = str(body.response_format) ?? 'mp3';
  const type = AUDIO_TYPES[format];
  if (type === undefined)
    return sendError(
      ctx,
      invalid(
        `Invalid value: '${format}'. Supported values are: ${Object.keys(AUDIO_TYPES)
          .map((k) => `'${k}'`)
          .join(', ')}.`,
        'response_format',
        'invalid_value',
      ),
    );
  const script = parseScript(String(body.model));
  if (script.slowMs > 0) await sleep(script.slowMs);
  const fail = scriptedFailure(script);
  if (fail) return sendError(ctx, fail);
  ctx.send(200, speechBytes(input, String(body.voice)), { 'content-type': type, ...commonHeaders() });
};

/** The "transcript": the file itself when it is printable UTF-8 (tests send text), else a size note. */
export function transcriptOf(data: Buffer): string {
  const text = data.toString('utf8');
  return /^[\P{Cc}\n\r\t]*$/u.test(text) && !text.includes('\uFFFD') ? text.trim() : `[audio of ${data.length} bytes]`;
}

export const handleTranscription: Route = async (ctx, env) => {
  const form = parseMultipart(await ctx.body(), ctx.header('content-type'));
  if (!form) return sendError(ctx, invalid('Expected multipart/form-data with a file and a model.'));
  const file = form.files.get('file');
  if (!file)
    return sendError(ctx, invalid("Missing required parameter: 'file'.", 'file', 'missing_required_parameter'));
  const model = env.model ?? form.fields.get('model');
  if (model === undefined)
    return sendError(ctx, invalid("Missing required parameter: 'model'.", 'model', 'missing_required_parameter'));
  const fail = scriptedFailure(parseScript(model));
  if (fail) return sendError(ctx, fail);
  const text = transcriptOf(file.data);
  const format = form.fields.get('response_format') ?? 'json';
  const headers = commonHeaders();
  switch (format) {
    case 'text':
      return ctx.send(200, `${text}\n`, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    case 'srt':
      return ctx.send(200, `1\n00:00:00,000 --> 00:00:01,000\n${text}\n\n`, {
        'content-type': 'text/plain; charset=utf-8',
        ...headers,
      });
    case 'vtt':
      return ctx.send(200, `WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n${text}\n\n`, {
        'content-type': 'text/plain; charset=utf-8',
        ...headers,
      });
    case 'verbose_json':
      return ctx.sendJson(
        200,
        {
          task: 'transcribe',
          language: 'english',
          duration: 1,
          text,
          segments: [
            {
              id: 0,
              seek: 0,
              start: 0,
              end: 1,
              text,
              tokens: [],
              temperature: 0,
              avg_logprob: 0,
              compression_ratio: 1,
              no_speech_prob: 0,
            },
          ],
        },
        headers,
      );
    case 'json':
      return ctx.sendJson(200, { text, usage: { type: 'duration', seconds: 1 } }, headers);
    default:
      return sendError(
        ctx,
        invalid(
          `Invalid value: '${format}'. Supported values are: 'json', 'text', 'srt', 'verbose_json', and 'vtt'.`,
          'response_format',
          'invalid_value',
        ),
      );
  }
};
