// IR ChatRequest -> Gemini generateContent body. Parameters Gemini has no field for are dropped here
// with a warning (capabilities.ts); the end user is dropped without one.
import type { ChatRequest, EncodeWarning, JsonObject, ToolChoice } from '../../ir/types.ts';
import { fitTemperature, lackedParams, toolResultImageWarnings } from '../shared/warnings.ts';
import type { EncodedBody } from '../types.ts';
import { geminiCapabilities as caps } from './capabilities.ts';
import { toGeminiContents } from './encode-messages.ts';
import { hasProperties, toGeminiSchema } from './openapi-schema.ts';

function toolConfig(choice: ToolChoice): JsonObject {
  switch (choice.type) {
    case 'auto':
      return { functionCallingConfig: { mode: 'AUTO' } };
    case 'none':
      return { functionCallingConfig: { mode: 'NONE' } };
    case 'any':
      return { functionCallingConfig: { mode: 'ANY' } };
    case 'tool':
      return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
  }
}

function generationConfig(req: ChatRequest, warnings: EncodeWarning[]): JsonObject {
  const p = req.params;
  const config: JsonObject = {};
  if (p.maxTokens !== undefined) config.maxOutputTokens = p.maxTokens;
  const temperature = fitTemperature(p.temperature, caps, warnings);
  if (temperature !== undefined) config.temperature = temperature;
  if (p.topP !== undefined) config.topP = p.topP;
  if (p.topK !== undefined) config.topK = p.topK;
  if (p.stop && p.stop.length > 0) config.stopSequences = p.stop;
  if (p.seed !== undefined) config.seed = p.seed;
  if (p.presencePenalty !== undefined) config.presencePenalty = p.presencePenalty;
  if (p.frequencyPenalty !== undefined) config.frequencyPenalty = p.frequencyPenalty;
  const format = p.responseFormat;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    config.responseSchema = toGeminiSchema(format.schema);
  }
  if (p.thinking) config.thinkingConfig = { thinkingBudget: p.thinking.budgetTokens, includeThoughts: true };
  return config;
}

export function toGeminiBody(req: ChatRequest): EncodedBody<JsonObject> {
  const warnings = [...lackedParams(req.params, caps), ...toolResultImageWarnings(req.messages, caps)];
  const body: JsonObject = { contents: toGeminiContents(req.messages, req.model) };
  const systemText = req.system.map((b) => ({ text: b.text })).filter((p) => p.text);
  if (systemText.length > 0) body.systemInstruction = { parts: systemText };
  if (req.tools.length > 0) {
    const declarations = req.tools.map((tool) => {
      const decl: JsonObject = { name: tool.name };
      if (tool.description) decl.description = tool.description;
      if (hasProperties(tool.inputSchema)) decl.parameters = toGeminiSchema(tool.inputSchema);
      return decl;
    });
    body.tools = [{ functionDeclarations: declarations }];
    if (req.toolChoice) body.toolConfig = toolConfig(req.toolChoice);
  }
  const config = generationConfig(req, warnings);
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return { body, warnings };
}
