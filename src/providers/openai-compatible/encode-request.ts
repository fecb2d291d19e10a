// IR chat request -> chat completions body (the OpenAI wire, shared by azure, together, fireworks),
// with a warning for each thing the host could not take as asked.
import type { ChatRequest, JsonObject, ResponseFormat, Tool, ToolChoice } from '../../ir/types.ts';
import { fitTemperature, lackedParams, toolResultImageWarnings, type WireCapabilities } from '../shared/warnings.ts';
import type { EncodedBody } from '../types.ts';
import { openaiCapabilities } from './capabilities.ts';
import { encodeMessages, encodeSystem } from './encode-messages.ts';

// Reasoning models reject the legacy `max_tokens`.
const MAX_COMPLETION_MODELS = /^(o\d|gpt-5)/;

export function toOpenAIChatBody(
  req: ChatRequest,
  caps: WireCapabilities = openaiCapabilities('openai'),
): EncodedBody<JsonObject> {
  const p = req.params;
  const warnings = [...lackedParams(p, caps), ...toolResultImageWarnings(req.messages, caps)];
  const body: JsonObject = {
    model: req.model,
    messages: [...encodeSystem(req.system), ...encodeMessages(req.messages)],
  };
  if (p.maxTokens !== undefined) {
    body[MAX_COMPLETION_MODELS.test(req.model) ? 'max_completion_tokens' : 'max_tokens'] = p.maxTokens;
  }
  const temperature = fitTemperature(p.temperature, caps, warnings);
  if (temperature !== undefined) body.temperature = temperature;
  if (p.topP !== undefined) body.top_p = p.topP;
  if (p.topK !== undefined && !caps.lacks.includes('topK')) body.top_k = p.topK;
  if (p.presencePenalty !== undefined) body.presence_penalty = p.presencePenalty;
  if (p.frequencyPenalty !== undefined) body.frequency_penalty = p.frequencyPenalty;
  if (p.logitBias !== undefined) body.logit_bias = p.logitBias;
  if (p.stop !== undefined && p.stop.length > 0) body.stop = p.stop;
  if (p.seed !== undefined) body.seed = p.seed;
  if (p.user !== undefined) body.user = p.user;
  if (p.responseFormat !== undefined) body.response_format = encodeResponseFormat(p.responseFormat);
  if (req.tools.length > 0) {
    body.tools = req.tools.map(encodeTool);
    if (req.toolChoice !== undefined) body.tool_choice = encodeToolChoice(req.toolChoice);
    if (p.parallelToolCalls !== undefined) body.parallel_tool_calls = p.parallelToolCalls;
  }
  if (req.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return { body, warnings };
}

function encodeTool(t: Tool): JsonObject {
  const fn: JsonObject = { name: t.name };
  if (t.description !== undefined) fn.description = t.description;
  fn.parameters = t.inputSchema;
  return { type: 'function', function: fn };
}

function encodeToolChoice(c: ToolChoice): JsonObject | string {
  switch (c.type) {
    case 'any':
      return 'required';
    case 'tool':
      return { type: 'function', function: { name: c.name } };
    default:
      return c.type;
  }
}

function encodeResponseFormat(f: ResponseFormat): JsonObject {
  if (f.type !== 'json_schema') return { type: f.type };
  const spec: JsonObject = { name: f.name, schema: f.schema };
  if (f.description !== undefined) spec.description = f.description;
  if (f.strict !== undefined) spec.strict = f.strict;
  return { type: 'json_schema', json_schema: spec };
}
