// Sampling and output parameters of a chat-completions body -> IR params. Range checks follow the
// public API's documented limits so that a bad value fails here, not at a random upstream.

import { invalid } from '../../../errors/gateway-error.ts';
import type { JsonObject, Params, ResponseFormat } from '../../../ir/types.ts';
import {
  describe,
  expectObject,
  expectString,
  optBoolean,
  optInteger,
  optNumber,
  optString,
} from '../../shared/json.ts';

function stopList(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value === '' ? undefined : [value];
  if (!Array.isArray(value)) return invalid('stop', `expected a string or an array of strings, got ${describe(value)}`);
  const out = value.map((s, i) => expectString(s, `stop[${i}]`));
  return out.length > 0 ? out : undefined;
}

function responseFormat(value: unknown): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined;
  const rf = expectObject(value, 'response_format');
  switch (rf.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema': {
      const js = expectObject(rf.json_schema, 'response_format.json_schema');
      const out: ResponseFormat = {
        type: 'json_schema',
        name: expectString(js.name, 'response_format.json_schema.name'),
        schema:
          js.schema === undefined ? {} : (expectObject(js.schema, 'response_format.json_schema.schema') as JsonObject),
      };
      const strict = optBoolean(js.strict, 'response_format.json_schema.strict');
      if (strict !== undefined) out.strict = strict;
      const description = optString(js.description, 'response_format.json_schema.description');
      if (description !== undefined) out.description = description;
      return out;
    }
    default:
      return invalid(
        'response_format.type',
        `expected "text", "json_object" or "json_schema", got ${JSON.stringify(rf.type)}`,
      );
  }
}

/** `{"<token id>": bias}`, each bias -100..100; the ids are the upstream tokenizer's, not checked here. */
function logitBias(value: unknown): Record<string, number> | undefined {
  if (value === undefined || value === null) return undefined;
  const raw = expectObject(value, 'logit_bias');
  const out: Record<string, number> = {};
  for (const [token, bias] of Object.entries(raw)) {
    const n = optNumber(bias, `logit_bias.${token}`, -100, 100);
    if (n !== undefined) out[token] = n;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Drops undefined entries so IR params only hold what the caller set. */
function compact(p: Params): Params {
  // A loop rather than entries/filter/fromEntries: this runs on every alpha call.
  const out: Record<string, unknown> = {};
  for (const k in p) {
    const v = p[k as keyof Params];
    if (v !== undefined) out[k] = v;
  }
  return out as Params;
}

export function decodeAlphaParams(body: Record<string, unknown>): Params {
  const maxCompletion = optInteger(body.max_completion_tokens, 'max_completion_tokens', 1);
  const maxTokens = optInteger(body.max_tokens, 'max_tokens', 1);
  // Checked for validity only: logprobs have no IR slot, they matter for pass-through.
  optBoolean(body.logprobs, 'logprobs');
  optInteger(body.top_logprobs, 'top_logprobs', 0, 20);
  optInteger(body.n, 'n', 1);
  return compact({
    maxTokens: maxCompletion ?? maxTokens,
    temperature: optNumber(body.temperature, 'temperature', 0, 2),
    topP: optNumber(body.top_p, 'top_p', 0, 1),
    stop: stopList(body.stop),
    seed: optInteger(body.seed, 'seed'),
    responseFormat: responseFormat(body.response_format),
    parallelToolCalls: optBoolean(body.parallel_tool_calls, 'parallel_tool_calls'),
    user: optString(body.user, 'user'),
    presencePenalty: optNumber(body.presence_penalty, 'presence_penalty', -2, 2),
    frequencyPenalty: optNumber(body.frequency_penalty, 'frequency_penalty', -2, 2),
    logitBias: logitBias(body.logit_bias),
  });
}
