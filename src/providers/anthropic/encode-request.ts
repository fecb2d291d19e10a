// IR chat request -> Anthropic Messages body (also the body of Bedrock InvokeModel, see bedrock.ts).
import type { ChatRequest, JsonObject, ResponseFormat } from '../../ir/types.ts';
import { encodeMessages, encodeText, encodeTool, encodeToolChoice } from './encode-blocks.ts';
import { planTokens } from './max-tokens.ts';

export function toAnthropicBody(req: ChatRequest): JsonObject {
  const p = req.params;
  const plan = planTokens(req.model, p.maxTokens, p.thinking?.budgetTokens);
  const thinkingOn = plan.thinkingBudget !== undefined;
  const body: JsonObject = { model: req.model, max_tokens: plan.maxTokens, messages: encodeMessages(req.messages) };
  const system = [...req.system.filter((b) => b.text !== '').map(encodeText)];
  const jsonHint = jsonInstruction(p.responseFormat);
  if (jsonHint) system.push({ type: 'text', text: jsonHint });
  if (system.length > 0) body.system = system;
  if (thinkingOn) {
    // Sampling parameters are rejected while extended thinking is on.
    body.thinking = { type: 'enabled', budget_tokens: plan.thinkingBudget ?? 0 };
  } else {
    if (p.temperature !== undefined) body.temperature = Math.min(1, Math.max(0, p.temperature));
    if (p.topP !== undefined) body.top_p = p.topP;
    if (p.topK !== undefined) body.top_k = p.topK;
  }
  const stops = (p.stop ?? []).filter((s) => s.trim() !== '');
  if (stops.length > 0) body.stop_sequences = stops;
  if (req.tools.length > 0) {
    body.tools = req.tools.map(encodeTool);
    // Forced tool use is rejected together with thinking: fall back to letting the model choose.
    const forced = req.toolChoice?.type === 'any' || req.toolChoice?.type === 'tool';
    const choice = thinkingOn && forced ? { type: 'auto' as const } : req.toolChoice;
    const encoded = encodeToolChoice(choice, p.parallelToolCalls);
    if (encoded) body.tool_choice = encoded;
  }
  if (p.user !== undefined) body.metadata = { user_id: p.user };
  if (req.stream) body.stream = true;
  return body;
}

/** No native JSON mode on this wire: ask for it in the system prompt; the family validates the answer. */
function jsonInstruction(f: ResponseFormat | undefined): string | undefined {
  if (!f || f.type === 'text') return undefined;
  const base = 'Respond with a single JSON object and nothing else: no prose, no code fences.';
  if (f.type === 'json_object') return base;
  return `${base} The object must conform to this JSON schema:\n${JSON.stringify(f.schema)}`;
}
