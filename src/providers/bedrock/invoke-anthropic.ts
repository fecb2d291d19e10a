// Bedrock InvokeModel with an Anthropic body (how Claude is served on Bedrock): the model moves into
// the path, streaming is chosen by the endpoint, the API version and betas move into the body
// (wire-formats.md 6.6). The body itself is the Anthropic encoder's (../anthropic/encode-request.ts).
import type { JsonObject } from '../../ir/types.ts';
import { isRecord, tryParseJson } from '../../util/json.ts';
import type { Credential, HttpRequestSpec } from '../types.ts';
import { bedrockBaseUrl, signAws } from './sigv4.ts';

export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/** Header names the Bedrock body absorbs instead of sending them. */
const ABSORBED = new Set(['anthropic-version', 'anthropic-beta']);

export function toBedrockBody(body: JsonObject, headers: Record<string, string>): JsonObject {
  const { model: _model, stream: _stream, ...rest } = body;
  const out: JsonObject = { ...rest, anthropic_version: BEDROCK_ANTHROPIC_VERSION };
  const betas = (headers['anthropic-beta'] ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '');
  if (betas.length > 0) {
    const existing = Array.isArray(rest.anthropic_beta) ? rest.anthropic_beta : [];
    out.anthropic_beta = [...new Set([...existing, ...betas])];
  }
  return out;
}

/** Pass-through: the caller's JSON text gets the same edits (parsed once, re-serialized). */
export function toBedrockBodyText(bodyText: string, headers: Record<string, string>): string {
  const parsed = tryParseJson(bodyText);
  if (!parsed.ok || !isRecord(parsed.value)) return bodyText;
  return JSON.stringify(toBedrockBody(parsed.value as JsonObject, headers));
}

export function bedrockInvokeUrl(credential: Credential, model: string, stream: boolean): string {
  const op = stream ? 'invoke-with-response-stream' : 'invoke';
  return `${bedrockBaseUrl(credential)}/model/${encodeURIComponent(model)}/${op}`;
}

export async function bedrockInvokeSpec(
  credential: Credential,
  model: string,
  stream: boolean,
  headers: Record<string, string>,
  body: string,
): Promise<HttpRequestSpec> {
  const extra: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!ABSORBED.has(k)) extra[k] = v;
  const spec: HttpRequestSpec = {
    method: 'POST',
    url: bedrockInvokeUrl(credential, model, stream),
    headers: {
      ...extra,
      'content-type': 'application/json',
      ...(stream
        ? { accept: 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-accept': 'application/json' }
        : { accept: 'application/json' }),
    },
    body,
  };
  return signAws(spec, credential);
}

/**
 * The runtime host has no list call, so the cheapest authenticated request is a one-token
 * InvokeModel on the smallest Claude model (a fraction of a cent). A rejected key answers 403.
 */
export const VERIFY_MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';

export function verifyBody(): string {
  return JSON.stringify({
    anthropic_version: BEDROCK_ANTHROPIC_VERSION,
    max_tokens: 1,
    messages: [{ role: 'user', content: 'ping' }],
  });
}
