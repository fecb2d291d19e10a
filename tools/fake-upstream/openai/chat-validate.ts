// Chat Completions request checks, with the messages/params/codes the real API answers for them.
import { contentText } from './chat-text.ts';
import { invalid, type OaiError } from './errors.ts';
import { isRecord, type Json, num, str } from './util.ts';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
const ROLE_LIST = "'system', 'assistant', 'user', 'function', 'tool', and 'developer'";

/** Returns the first problem found (the API reports one at a time), or undefined when the request is valid. */
export function validateChat(body: unknown): OaiError | undefined {
  if (!isRecord(body))
    return invalid(
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
    );
  if (str(body.model) === undefined || body.model === '') return invalid('you must provide a model parameter');
  if (body.messages === undefined)
    return invalid("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (!Array.isArray(body.messages))
    return invalid("Invalid type for 'messages': expected an array of objects.", 'messages', 'invalid_type');
  if (body.messages.length === 0)
    return invalid(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  return validateMessages(body.messages) ?? validateParams(body) ?? validateTools(body);
}

function validateMessages(messages: unknown[]): OaiError | undefined {
  // tool_call ids of the latest assistant turn that still await a `tool` answer
  let pending: Set<string> | undefined;
  let pendingAt = -1;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isRecord(m))
      return invalid(`Invalid type for 'messages[${i}]': expected an object.`, `messages[${i}]`, 'invalid_type');
    const role = str(m.role);
    if (role === undefined)
      return invalid(
        `Missing required parameter: 'messages[${i}].role'.`,
        `messages[${i}].role`,
        'missing_required_parameter',
      );
    if (!ROLES.has(role))
      return invalid(
        `Invalid value: '${role}'. Supported values are: ${ROLE_LIST}.`,
        `messages[${i}].role`,
        'invalid_value',
      );
    if (role === 'tool') {
      const id = str(m.tool_call_id);
      if (pending === undefined)
        return invalid(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
        );
      if (id === undefined)
        return invalid(
          `Missing required parameter: 'messages[${i}].tool_call_id'.`,
          `messages[${i}].tool_call_id`,
          'missing_required_parameter',
        );
      if (!pending.has(id))
        return invalid(
          `Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message.`,
          `messages.[${i}].tool_call_id`,
        );
      pending.delete(id);
      continue;
    }
    if (pending !== undefined && pending.size > 0) return unanswered(pendingAt, pending);
    pending = undefined;
    if (role === 'user' && m.content === undefined)
      return invalid(
        `Missing required parameter: 'messages[${i}].content'.`,
        `messages[${i}].content`,
        'missing_required_parameter',
      );
    if (role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      pending = new Set();
      pendingAt = i;
      for (let j = 0; j < m.tool_calls.length; j++) {
        const c = m.tool_calls[j];
        const id = isRecord(c) ? str(c.id) : undefined;
        if (id === undefined)
          return invalid(
            `Missing required parameter: 'messages[${i}].tool_calls[${j}].id'.`,
            `messages[${i}].tool_calls[${j}].id`,
            'missing_required_parameter',
          );
        if (id.length > 40)
          return invalid(
            `Invalid 'messages[${i}].tool_calls[${j}].id': string too long. Expected a string with maximum length 40, but got a string with length ${id.length} instead.`,
            `messages[${i}].tool_calls[${j}].id`,
            'string_above_max_length',
          );
        pending.add(id);
      }
    }
  }
  if (pending !== undefined && pending.size > 0) return unanswered(pendingAt, pending);
  return undefined;
}

function unanswered(at: number, ids: Set<string>): OaiError {
  return invalid(
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...ids].join(', ')}`,
    `messages.[${at}].role`,
  );
}

function validateParams(body: Json): OaiError | undefined {
  const top = body.top_logprobs;
  if (top !== undefined && top !== null) {
    const n = num(top);
    if (n === undefined || !Number.isInteger(n))
      return invalid("Invalid type for 'top_logprobs': expected an integer.", 'top_logprobs', 'invalid_type');
    if (n > 20)
      return invalid(
        `Invalid 'top_logprobs': integer above maximum value. Expected a value <= 20, but got ${n} instead.`,
        'top_logprobs',
        'integer_above_max_value',
      );
    if (n < 0)
      return invalid(
        `Invalid 'top_logprobs': integer below minimum value. Expected a value >= 0, but got ${n} instead.`,
        'top_logprobs',
        'integer_below_min_value',
      );
    if (body.logprobs !== true)
      return invalid("Invalid value for 'top_logprobs': 'logprobs' must be set to true.", 'top_logprobs');
  }
  const range = checkRange(body, 'temperature', 0, 2) ?? checkRange(body, 'top_p', 0, 1);
  if (range) return range;
  const n = body.n;
  if (n !== undefined && n !== null && (num(n) === undefined || (n as number) < 1 || (n as number) > 128))
    return invalid(`Invalid 'n': expected an integer between 1 and 128, but got ${JSON.stringify(n)} instead.`, 'n');
  if (Array.isArray(body.stop) && body.stop.length > 4)
    return invalid(
      `Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length ${body.stop.length} instead.`,
      'stop',
      'array_above_max_length',
    );
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true)
    return invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  const rf = body.response_format;
  if (isRecord(rf) && rf.type === 'json_object' && !mentionsJson(body.messages as unknown[]))
    return invalid(
      "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
      'messages',
    );
  return undefined;
}

function checkRange(body: Json, key: string, min: number, max: number): OaiError | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  const n = num(v);
  if (n === undefined) return invalid(`Invalid type for '${key}': expected a number.`, key, 'invalid_type');
  if (n > max)
    return invalid(
      `Invalid '${key}': decimal above maximum value. Expected a value <= ${max}, but got ${n} instead.`,
      key,
      'decimal_above_max_value',
    );
  if (n < min)
    return invalid(
      `Invalid '${key}': decimal below minimum value. Expected a value >= ${min}, but got ${n} instead.`,
      key,
      'decimal_below_min_value',
    );
  return undefined;
}

function mentionsJson(messages: unknown[]): boolean {
  return messages.some((m) => isRecord(m) && /json/i.test(contentText(m.content)));
}

function validateTools(body: Json): OaiError | undefined {
  if (body.tools === undefined || body.tools === null) {
    if (isRecord(body.tool_choice) || body.tool_choice === 'required')
      return invalid(
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
        'tool_choice',
      );
    return undefined;
  }
  if (!Array.isArray(body.tools))
    return invalid("Invalid type for 'tools': expected an array.", 'tools', 'invalid_type');
  const names = new Set<string>();
  for (let i = 0; i < body.tools.length; i++) {
    const t = body.tools[i];
    if (!isRecord(t) || t.type !== 'function' || !isRecord(t.function)) continue;
    const name = str(t.function.name);
    if (name === undefined)
      return invalid(
        `Missing required parameter: 'tools[${i}].function.name'.`,
        `tools[${i}].function.name`,
        'missing_required_parameter',
      );
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
      return invalid(
        `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `tools[${i}].function.name`,
        'invalid_value',
      );
    names.add(name);
  }
  const tc = body.tool_choice;
  if (isRecord(tc) && isRecord(tc.function)) {
    const want = str(tc.function.name);
    if (want !== undefined && !names.has(want))
      return invalid(
        `Invalid value for 'tool_choice': no function named '${want}' was specified in the 'tools' parameter.`,
        'tool_choice',
      );
  }
  return undefined;
}
