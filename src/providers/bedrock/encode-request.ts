// IR ChatRequest -> Converse body. Model-specific extras (Claude thinking / top_k) travel in
// `additionalModelRequestFields`; anything a model family cannot take is left out, with a warning.
import type { ChatRequest, JsonObject, ResponseFormat, ToolChoice } from '../../ir/types.ts';
import {
  dropped,
  fitTemperature,
  lacked,
  lackedParams,
  toolResultImageWarnings,
  uniqueWarnings,
} from '../shared/warnings.ts';
import type { EncodedBody } from '../types.ts';
import { converseCapabilities as caps } from './capabilities.ts';
import { type EncodeContext, historyToolNames, systemBlocks, toConverseMessages } from './encode-messages.ts';
import { isAnthropicModel, supportsCachePoint } from './models.ts';

/** Headroom for the visible answer when thinking is on and the caller set no limit. */
const THINKING_ANSWER_TOKENS = 4096;

/** Converse has no JSON mode: ask for JSON in the system prompt; the family validates the result. */
export function jsonInstruction(format: ResponseFormat | undefined): string | undefined {
  if (!format || format.type === 'text') return undefined;
  const base = 'Respond with a single valid JSON object only: no prose, no markdown code fences.';
  if (format.type === 'json_object') return base;
  return `${base} The object must match this JSON schema:\n${JSON.stringify(format.schema)}`;
}

function toolChoice(choice: ToolChoice | undefined): JsonObject | undefined {
  switch (choice?.type) {
    case 'auto':
      return { auto: {} };
    case 'any':
      return { any: {} };
    case 'tool':
      return { tool: { name: choice.name } };
    default:
      // `none` has no Converse equivalent; the tools are withheld instead (see toolConfig).
      return undefined;
  }
}

function toolConfig(req: ChatRequest, ctx: EncodeContext, forcedAllowed: boolean): JsonObject | undefined {
  const history = historyToolNames(req.messages);
  const withhold = req.toolChoice?.type === 'none';
  if (req.tools.length > 0 && !(withhold && !history.hasToolBlocks)) {
    const caching = supportsCachePoint(ctx.model);
    const tools: JsonObject[] = [];
    for (const tool of req.tools) {
      const spec: JsonObject = { name: tool.name, inputSchema: { json: tool.inputSchema } };
      if (tool.description) spec.description = tool.description;
      tools.push({ toolSpec: spec });
      if (caching && tool.cacheControl) tools.push({ cachePoint: { type: 'default' } });
    }
    const config: JsonObject = { tools };
    const choice = withhold ? undefined : toolChoice(req.toolChoice);
    if (choice && (forcedAllowed || 'auto' in choice)) config.toolChoice = choice;
    else if (choice) ctx.warnings.push(dropped('tool_choice'));
    return config;
  }
  if (!history.hasToolBlocks) return undefined;
  // Converse rejects tool blocks in history without a toolConfig, even when no tool is offered now.
  const names = history.names.length > 0 ? history.names : ['tool'];
  return {
    tools: names.map((name) => ({ toolSpec: { name, inputSchema: { json: { type: 'object', properties: {} } } } })),
  };
}

export function toConverseBody(req: ChatRequest): EncodedBody<JsonObject> {
  const p = req.params;
  const ctx: EncodeContext = { model: req.model, warnings: lackedParams(p, caps) };
  ctx.warnings.push(...toolResultImageWarnings(req.messages, caps));
  const claude = isAnthropicModel(req.model);
  const thinking = claude && p.thinking ? p.thinking : undefined;
  if (p.thinking && !claude) ctx.warnings.push(lacked('thinking'));
  const body: JsonObject = { messages: toConverseMessages(req.messages, ctx) };

  const system = systemBlocks(req.system, ctx);
  const instruction = jsonInstruction(p.responseFormat);
  if (instruction) system.push({ text: instruction });
  if (system.length > 0) body.system = system;

  const inference: JsonObject = {};
  let maxTokens = p.maxTokens;
  if (thinking && (maxTokens === undefined || maxTokens <= thinking.budgetTokens)) {
    maxTokens = thinking.budgetTokens + (maxTokens ?? THINKING_ANSWER_TOKENS);
  }
  if (maxTokens !== undefined) inference.maxTokens = maxTokens;
  // Claude forbids sampling parameters while thinking.
  if (thinking) {
    for (const name of ['temperature', 'topP'] as const) if (p[name] !== undefined) ctx.warnings.push(dropped(name));
  } else {
    const temperature = fitTemperature(p.temperature, caps, ctx.warnings);
    if (temperature !== undefined) inference.temperature = temperature;
    if (p.topP !== undefined) inference.topP = p.topP;
  }
  if (p.stop && p.stop.length > 0) inference.stopSequences = p.stop;
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;

  const extra: JsonObject = {};
  // top_k is a Claude extra here; other Converse models have no field for it.
  if (claude && !thinking && p.topK !== undefined) extra.top_k = p.topK;
  else if (p.topK !== undefined) ctx.warnings.push(dropped('topK'));
  if (thinking) extra.thinking = { type: 'enabled', budget_tokens: thinking.budgetTokens };
  if (Object.keys(extra).length > 0) body.additionalModelRequestFields = extra;

  // Claude rejects forced tool use while thinking; fall back to auto there.
  const tools = toolConfig(req, ctx, !thinking);
  if (tools) body.toolConfig = tools;
  return { body, warnings: uniqueWarnings(ctx.warnings) };
}
