// Builds a Responses API `response` object for a request (text or function calls, usage, limits).
import { countTokens, parseScript, replyText } from '../../script.ts';
import { invalid, type OaiError } from '../errors.ts';
import { makeToolCalls, pickTools, type ToolDecl } from '../tool-args.ts';
import { isRecord, type Json, newId, nowSec, num, str } from '../util.ts';
import { inputText, lastUserItemText, normaliseItems, rawItems, validateInput } from './input.ts';

export interface BuiltResponse {
  /** The terminal response object (status completed / incomplete / failed). */
  response: Json;
  inputItems: Json[];
}

export interface PreviousTurn {
  /** Call ids of function calls the previous response made. */
  calls: Set<string>;
}

export function validateResponseRequest(body: unknown, previous: PreviousTurn | undefined): OaiError | undefined {
  if (!isRecord(body)) return invalid('We could not parse the JSON body of your request.');
  if (str(body.model) === undefined)
    return invalid("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  if (body.input === undefined && body.previous_response_id === undefined && body.prompt === undefined)
    return invalid("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  if (body.input !== undefined && typeof body.input !== 'string' && !Array.isArray(body.input))
    return invalid("Invalid type for 'input': expected a string or an array of input items.", 'input', 'invalid_type');
  if (body.background === true && body.store === false)
    return invalid('Background mode requires store to be true.', 'background');
  if (Array.isArray(body.tools)) {
    for (let i = 0; i < body.tools.length; i++) {
      const t = body.tools[i];
      if (isRecord(t) && t.type === 'function' && str(t.name) === undefined)
        return invalid(
          `Missing required parameter: 'tools[${i}].name'.`,
          `tools[${i}].name`,
          'missing_required_parameter',
        );
    }
  }
  return validateInput(rawItems(body.input), previous?.calls ?? new Set());
}

function flatTools(tools: unknown): ToolDecl[] {
  if (!Array.isArray(tools)) return [];
  const out: ToolDecl[] = [];
  for (const t of tools)
    if (isRecord(t) && t.type === 'function' && typeof t.name === 'string')
      out.push({ name: t.name, parameters: t.parameters });
  return out;
}

/** `model` overrides the body (Azure deployments). Expects a request that passed validation. */
export function buildResponse(body: Json, model = str(body.model) ?? ''): BuiltResponse {
  const script = parseScript(model);
  const items = normaliseItems(rawItems(body.input));
  const userText = lastUserItemText(items);
  const instructions = str(body.instructions);
  const inputTokens = countTokens(inputText(instructions, items));
  const output: Json[] = [];
  let outputTokens = 0;
  let status = 'completed';
  let incomplete: Json | null = null;
  const last = items[items.length - 1];
  const forced = isRecord(body.tool_choice) ? str(body.tool_choice.name) : undefined;
  const callTools =
    (script.toolCalls > 0 || forced !== undefined || body.tool_choice === 'required') &&
    body.tool_choice !== 'none' &&
    last?.type !== 'function_call_output';
  const picked = callTools
    ? pickTools(flatTools(body.tools), body.parallel_tool_calls === false ? 1 : Math.max(1, script.toolCalls), forced)
    : [];
  if (picked.length > 0) {
    for (const c of makeToolCalls(picked, userText, 'call_')) {
      output.push({
        type: 'function_call',
        id: newId('fc_'),
        call_id: c.id,
        name: c.name,
        arguments: c.arguments,
        status: 'completed',
      });
      outputTokens += countTokens(c.name + c.arguments);
    }
  } else {
    const format = isRecord(body.text) && isRecord(body.text.format) ? str(body.text.format.type) : undefined;
    let text = replyText(format?.startsWith('json') && !script.badjson ? { ...script, json: true } : script, userText);
    const limit = num(body.max_output_tokens);
    if (limit !== undefined && countTokens(text) > limit) {
      text = text.slice(0, limit * 4);
      status = 'incomplete';
      incomplete = { reason: 'max_output_tokens' };
    }
    outputTokens = countTokens(text);
    output.push({
      type: 'message',
      id: newId('msg_'),
      status: status === 'completed' ? 'completed' : 'incomplete',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
    });
  }
  const response: Json = {
    id: newId('resp_', 32),
    object: 'response',
    created_at: nowSec(),
    status,
    background: body.background === true,
    error: null,
    incomplete_details: incomplete,
    instructions: instructions ?? null,
    max_output_tokens: num(body.max_output_tokens) ?? null,
    model,
    output,
    parallel_tool_calls: body.parallel_tool_calls !== false,
    previous_response_id: str(body.previous_response_id) ?? null,
    reasoning: { effort: null, summary: null },
    store: body.store !== false,
    temperature: num(body.temperature) ?? 1,
    text: isRecord(body.text) ? body.text : { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: Array.isArray(body.tools) ? body.tools : [],
    top_p: num(body.top_p) ?? 1,
    truncation: 'disabled',
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + outputTokens,
    },
    user: null,
    metadata: isRecord(body.metadata) ? body.metadata : {},
  };
  return { response, inputItems: items };
}

/** The scripted server failure a background response ends in. */
export function failedResponse(r: Json): Json {
  return {
    ...r,
    status: 'failed',
    output: [],
    usage: null,
    error: { code: 'server_error', message: 'The model failed to generate a response (scripted fail-500).' },
  };
}
