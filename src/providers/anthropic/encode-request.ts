// IR chat request -> Anthropic Messages body (also the body of Bedrock InvokeModel, see
// ../bedrock/invoke-anthropic.ts), with a warning for each thing the wire could not take as asked.
import type { ChatRequest, EncodeWarning, JsonObject, ResponseFormat } from '../../ir/types.ts';
import { clamped, dropped, fitTemperature, lackedParams } from '../shared/warnings.ts';
import type { EncodedBody } from '../types.ts';
import { anthropicCapabilities as caps } from './capabilities.ts';
import { encodeMessages, encodeText, encodeTool, encodeToolChoice } from './encode-blocks.ts';
import { planTokens } from './max-tokens.ts';

export function toAnthropicBody(req: ChatRequest): EncodedBody<JsonObject> {
  const p = req.params;
  const warnings: EncodeWarning[] = lackedParams(p, caps);
  const plan = planTokens(req.model, p.maxTokens, p.thinking?.budgetTokens);
  const thinkingOn = plan.thinkingBudget !== undefined;
  if (p.thinking && !thinkingOn) warnings.push(dropped('thinking'));
  else if (p.thinking && plan.thinkingBudget !== p.thinking.budgetTokens)
    warnings.push(clamped('thinking.budget_tokens'));
  const body: JsonObject = { model: req.model, max_tokens: plan.maxTokens, messages: encodeMessages(req.messages) };
  const system = [...req.system.filter((b) => b.text !== '').map(encodeText)];
  const jsonHint = jsonInstruction(p.responseFormat);
  if (jsonHint) system.push({ type: 'text', text: jsonHint });
  if (system.length > 0) body.system = system;
  if (thinkingOn) {
    // Sampling parameters are rejected while extended thinking is on.
    body.thinking = { type: 'enabled', budget_tokens: plan.thinkingBudget ?? 0 };
    for (const name of ['temperature', 'topP', 'topK'] as const)
      if (p[name] !== undefined) warnings.push(dropped(name));
  } else {
    const temperature = fitTemperature(p.temperature, caps, warnings);
    if (temperature !== undefined) body.temperature = temperature;
    if (p.topP !== undefined) body.top_p = p.topP;
    if (p.topK !== undefined) body.top_k = p.topK;
  }
  // Whitespace-only stop sequences are rejected by the upstream.
  const stops = (p.stop ?? []).filter((s) => s.trim() !== '');
  if (stops.length < (p.stop ?? []).length) warnings.push(dropped('stop'));
  if (stops.length > 0) body.stop_sequences = stops;
  if (req.tools.length > 0) {
    body.tools = req.tools.map(encodeTool);
    // Forced tool use is rejected together with thinking: fall back to letting the model choose.
    const forced = req.toolChoice?.type === 'any' || req.toolChoice?.type === 'tool';
    if (thinkingOn && forced) warnings.push(dropped('tool_choice'));
    const choice = thinkingOn && forced ? { type: 'auto' as const } : req.toolChoice;
    const encoded = encodeToolChoice(choice, p.parallelToolCalls);
    if (encoded) body.tool_choice = encoded;
  }
  if (p.user !== undefined) body.metadata = { user_id: p.user };
  if (req.stream) body.stream = true;
  return { body, warnings };
}

/** No native JSON mode on this wire: ask for it in the system prompt; the family validates the answer. */
function jsonInstruction(f: ResponseFormat | undefined): string | undefined {
  if (!f || f.type === 'text') return undefined;
  const base = 'Respond with a single JSON object and nothing else: no prose, no code fences.';
  if (f.type === 'json_object') return base;
  return `${base} The object must conform to this JSON schema:\n${JSON.stringify(f.schema)}`;
}
