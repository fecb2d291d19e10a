// Converse request validation (ValidationException messages) for the rules Bedrock enforces itself.
import { verifyThinking } from '../anthropic/thinking.ts';
import { isInt, isObj, isStr, type Json } from '../anthropic/util.ts';

const BLOCK_MEMBERS = new Set([
  'text',
  'image',
  'document',
  'video',
  'toolUse',
  'toolResult',
  'guardContent',
  'cachePoint',
  'reasoningContent',
  'citationsContent',
  'searchResult',
]);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Which member of the ContentBlock union is set; unions must have exactly one. */
export function memberOf(block: Json): string | undefined {
  const keys = Object.keys(block).filter((k) => block[k] !== undefined && k !== '$unknown');
  return keys.length === 1 && BLOCK_MEMBERS.has(keys[0]) ? keys[0] : undefined;
}

function checkBlock(b: unknown, role: string, at: string): string | undefined {
  if (!isObj(b)) return `Value at '${at}' failed to satisfy constraint: Member must not be null`;
  const member = memberOf(b);
  if (!member) return `The content block at ${at} must set exactly one of: ${[...BLOCK_MEMBERS].join(', ')}.`;
  const v = b[member];
  if (member === 'text' && (!isStr(v) || v.length === 0))
    return `The text field in the ContentBlock object at ${at} is blank. Add text to the text field, and try again.`;
  if (member === 'toolUse') {
    if (role !== 'assistant') return `toolUse blocks are only allowed in assistant messages (${at}).`;
    if (!isObj(v) || !isStr(v.toolUseId) || !isStr(v.name) || !isObj(v.input))
      return `The toolUse block at ${at} needs toolUseId, name and an input object.`;
  }
  if (member === 'toolResult') {
    if (role !== 'user') return `toolResult blocks are only allowed in user messages (${at}).`;
    if (!isObj(v) || !isStr(v.toolUseId) || !Array.isArray(v.content))
      return `The toolResult block at ${at} needs toolUseId and a content list.`;
  }
  if (member === 'reasoningContent' && isObj(v) && isObj(v.reasoningText)) {
    const rt = v.reasoningText;
    if (!isStr(rt.text) || !isStr(rt.signature) || !verifyThinking(rt.text, rt.signature))
      return `The model returned the following errors: ${at}: Invalid \`signature\` in \`thinking\` block`;
  }
  return undefined;
}

function toolIds(m: Json, member: 'toolUse' | 'toolResult'): string[] {
  return (m.content as Json[]).filter((b) => isObj(b[member])).map((b) => String((b[member] as Json).toolUseId));
}

function checkPairing(messages: Json[]): string | undefined {
  for (let i = 1; i < messages.length; i++) {
    if (messages[i].role !== 'user') continue;
    const offered = new Set(toolIds(messages[i - 1], 'toolUse'));
    const stray = toolIds(messages[i], 'toolResult').filter((id) => !offered.has(id));
    if (stray.length)
      return `messages.${i}.content: toolResult blocks reference ids with no toolUse in the previous turn: ${stray.join(', ')}`;
  }
  for (let i = 0; i + 1 < messages.length; i++) {
    if (messages[i].role !== 'assistant') continue;
    const answered = new Set(toolIds(messages[i + 1], 'toolResult'));
    const missing = toolIds(messages[i], 'toolUse').filter((id) => !answered.has(id));
    if (missing.length)
      return `Expected toolResult blocks at messages.${i + 1}.content for the following Ids: ${missing.join(', ')}`;
  }
  return undefined;
}

function checkToolConfig(tc: unknown): string | undefined {
  if (tc === undefined) return undefined;
  if (!isObj(tc) || !Array.isArray(tc.tools) || tc.tools.length === 0)
    return "Value at 'toolConfig.tools' failed to satisfy constraint: Member must have length greater than or equal to 1";
  const names = new Set<string>();
  for (let i = 0; i < tc.tools.length; i++) {
    const t = tc.tools[i];
    if (isObj(t) && isObj(t.cachePoint)) continue;
    const spec = isObj(t) ? t.toolSpec : undefined;
    if (!isObj(spec) || !isStr(spec.name) || !TOOL_NAME.test(spec.name))
      return `Value at 'toolConfig.tools.${i + 1}.member.toolSpec.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+`;
    if (!isObj(spec.inputSchema) || !isObj(spec.inputSchema.json))
      return `The toolSpec at toolConfig.tools.${i} needs inputSchema.json.`;
    names.add(spec.name);
  }
  const choice = tc.toolChoice;
  if (isObj(choice) && isObj(choice.tool) && !names.has(String(choice.tool.name)))
    return `toolConfig.toolChoice.tool.name '${String(choice.tool.name)}' is not among the declared tools.`;
  return undefined;
}

function checkInference(ic: unknown): string | undefined {
  if (ic === undefined) return undefined;
  if (!isObj(ic)) return 'inferenceConfig must be an object.';
  if (ic.maxTokens !== undefined && (!isInt(ic.maxTokens) || ic.maxTokens < 1))
    return "Value at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member must have value greater than or equal to 1";
  for (const k of ['temperature', 'topP']) {
    const v = ic[k];
    if (v !== undefined && (typeof v !== 'number' || v < 0 || v > 1))
      return `Value at 'inferenceConfig.${k}' failed to satisfy constraint: Member must have value between 0 and 1`;
  }
  return undefined;
}

/** Returns the first ValidationException message, or undefined when the Converse body is acceptable. */
export function validateConverse(body: unknown): string | undefined {
  if (!isObj(body)) return 'Malformed request body: expected a JSON object.';
  const msgs = body.messages;
  if (!Array.isArray(msgs))
    return "1 validation error detected: Value null at 'messages' failed to satisfy constraint: Member must not be null";
  if (msgs.length === 0)
    return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
  let hasToolBlocks = false;
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (!isObj(m) || (m.role !== 'user' && m.role !== 'assistant'))
      return `Value at 'messages.${i + 1}.member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]`;
    if (!Array.isArray(m.content) || m.content.length === 0)
      return `Value at 'messages.${i + 1}.member.content' failed to satisfy constraint: Member must have length greater than or equal to 1`;
    if (i === 0 && m.role !== 'user')
      return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
    if (i > 0 && (msgs[i - 1] as Json).role === m.role)
      return 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.';
    for (let j = 0; j < m.content.length; j++) {
      const e = checkBlock(m.content[j], m.role, `messages.${i}.content.${j}`);
      if (e) return e;
      const b = m.content[j] as Json;
      if (b.toolUse !== undefined || b.toolResult !== undefined) hasToolBlocks = true;
    }
  }
  if (hasToolBlocks && body.toolConfig === undefined)
    return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
  if (body.system !== undefined && !Array.isArray(body.system)) return 'system must be a list of SystemContentBlock.';
  return checkToolConfig(body.toolConfig) ?? checkInference(body.inferenceConfig) ?? checkPairing(msgs as Json[]);
}
