// Validation of generateContent bodies the way the Generative Language API rejects them.
import { isObj, isStr, type Json } from '../anthropic/util.ts';

export type GPart = Json;
export interface GContent {
  role: 'user' | 'model';
  parts: GPart[];
}
export interface GFunction {
  name: string;
  schema: unknown;
}
export interface GenerateRequest {
  contents: GContent[];
  system: GPart[];
  functions: GFunction[];
  /** `functionCallingConfig.mode` is NONE: never answer with calls. */
  callsDisabled: boolean;
  maxOutputTokens?: number;
  stopSequences: string[];
  json: boolean;
  includeThoughts: boolean;
}

export type GValidated = { ok: true; req: GenerateRequest } | { ok: false; message: string };

const DATA_FIELDS = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
  'toolCall',
  'toolResponse',
];
const META_FIELDS = [
  'thought',
  'thoughtSignature',
  'videoMetadata',
  'partMetadata',
  'mediaResolution',
  'audioTranscription',
  'mediaProcessing',
];
const KNOWN_PART_FIELDS = new Set([...DATA_FIELDS, ...META_FIELDS]);
const FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

function checkPart(p: unknown, at: string): string | undefined {
  if (!isObj(p)) return `Invalid JSON payload received. ${at}: expected an object.`;
  for (const k of Object.keys(p))
    if (!KNOWN_PART_FIELDS.has(k))
      return `Invalid JSON payload received. Unknown name "${k}" at '${at}': Cannot find field.`;
  const data = DATA_FIELDS.filter((k) => p[k] !== undefined);
  if (data.length === 0) return `* ${at}.data: required oneof field 'data' must have one initialized field`;
  if (data.length > 1) return `* ${at}.data: oneof field 'data' is already set. Cannot set '${data[1]}'`;
  if (p.text !== undefined && !isStr(p.text)) return `Invalid value at '${at}.text', expected a string`;
  if (
    p.inlineData !== undefined &&
    (!isObj(p.inlineData) || !isStr(p.inlineData.mimeType) || !isStr(p.inlineData.data))
  )
    return `* ${at}.inline_data: mimeType and data are required`;
  const fc = p.functionCall;
  if (fc !== undefined && (!isObj(fc) || !isStr(fc.name) || (fc.args !== undefined && !isObj(fc.args))))
    return `* ${at}.function_call: name is required and args must be an object`;
  const fr = p.functionResponse;
  if (fr !== undefined && (!isObj(fr) || !isStr(fr.name) || !isObj(fr.response)))
    return `* ${at}.function_response: name is required and response must be an object`;
  return undefined;
}

function checkContents(raw: unknown): { contents: GContent[] } | { error: string } {
  if (!Array.isArray(raw) || raw.length === 0)
    return { error: '* GenerateContentRequest.contents: contents is not specified' };
  const out: GContent[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (!isObj(c)) return { error: `Invalid JSON payload received. contents[${i}]: expected an object.` };
    const role = c.role === undefined || c.role === '' ? 'user' : c.role;
    if (role !== 'user' && role !== 'model') return { error: 'Please use a valid role: user, model.' };
    if (!Array.isArray(c.parts) || c.parts.length === 0)
      return { error: `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.` };
    for (let j = 0; j < c.parts.length; j++) {
      const e = checkPart(c.parts[j], `contents[${i}].parts[${j}]`);
      if (e) return { error: e };
    }
    out.push({ role, parts: c.parts as GPart[] });
  }
  return { contents: out };
}

function checkTools(raw: unknown): { functions: GFunction[] } | { error: string } {
  if (raw === undefined) return { functions: [] };
  if (!Array.isArray(raw)) return { error: 'Invalid JSON payload received. tools: expected a list.' };
  const functions: GFunction[] = [];
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i];
    if (!isObj(t)) return { error: `Invalid JSON payload received. tools[${i}]: expected an object.` };
    const decls = t.functionDeclarations;
    if (decls === undefined) continue;
    if (!Array.isArray(decls))
      return { error: `Invalid JSON payload received. tools[${i}].functionDeclarations: expected a list.` };
    for (let j = 0; j < decls.length; j++) {
      const d = decls[j];
      if (!isObj(d) || !isStr(d.name) || !FUNCTION_NAME.test(d.name))
        return {
          error: `* GenerateContentRequest.tools[${i}].function_declarations[${j}].name: Invalid function name. Must start with a letter or an underscore, and contain only letters, digits, underscores, dots, colons and dashes (max 64).`,
        };
      functions.push({ name: d.name, schema: d.parameters ?? d.parametersJsonSchema });
    }
  }
  return { functions };
}

function checkGeneration(g: unknown): { cfg: Json } | { error: string } {
  if (g === undefined) return { cfg: {} };
  if (!isObj(g)) return { error: 'Invalid JSON payload received. generationConfig: expected an object.' };
  const max = g.maxOutputTokens;
  if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 1))
    return { error: '* GenerateContentRequest.generation_config.max_output_tokens: must be a positive integer' };
  const stops = g.stopSequences;
  if (stops !== undefined && (!Array.isArray(stops) || !stops.every(isStr) || stops.length > 5))
    return { error: '* GenerateContentRequest.generation_config.stop_sequences: at most 5 strings' };
  const t = g.temperature;
  if (t !== undefined && (typeof t !== 'number' || t < 0 || t > 2))
    return { error: '* GenerateContentRequest.generation_config.temperature: must be in [0.0, 2.0]' };
  return { cfg: g };
}

export function validateGenerate(body: unknown): GValidated {
  if (!isObj(body)) return { ok: false, message: 'Invalid JSON payload received.' };
  const contents = checkContents(body.contents);
  if ('error' in contents) return { ok: false, message: contents.error };
  const sys = body.systemInstruction;
  let system: GPart[] = [];
  if (sys !== undefined) {
    if (!isObj(sys) || !Array.isArray(sys.parts))
      return { ok: false, message: '* systemInstruction.parts: must be a list of parts' };
    for (let j = 0; j < sys.parts.length; j++) {
      const e = checkPart(sys.parts[j], `system_instruction.parts[${j}]`);
      if (e) return { ok: false, message: e };
    }
    system = sys.parts as GPart[];
  }
  const tools = checkTools(body.tools);
  if ('error' in tools) return { ok: false, message: tools.error };
  const gen = checkGeneration(body.generationConfig);
  if ('error' in gen) return { ok: false, message: gen.error };
  const fcc =
    isObj(body.toolConfig) && isObj(body.toolConfig.functionCallingConfig) ? body.toolConfig.functionCallingConfig : {};
  const thinkingConfig = isObj(gen.cfg.thinkingConfig) ? gen.cfg.thinkingConfig : {};
  return {
    ok: true,
    req: {
      contents: contents.contents,
      system,
      functions: tools.functions,
      callsDisabled: fcc.mode === 'NONE',
      maxOutputTokens: gen.cfg.maxOutputTokens as number | undefined,
      stopSequences: (gen.cfg.stopSequences as string[] | undefined) ?? [],
      json: gen.cfg.responseMimeType === 'application/json',
      includeThoughts: thinkingConfig.includeThoughts === true,
    },
  };
}
