// The codes request encoders use to say what they left out or changed, so that a parameter a
// vendor lacks is reported to the caller instead of vanishing. Each vendor's capabilities.ts fills in
// a WireCapabilities; the encoders turn it into warnings for what the call actually set.
import type { EncodeWarning, Message, Params } from '../../ir/types.ts';

export type ParamName = keyof Params;

/** What one wire can carry of the IR parameters; the same shape in every vendor folder. */
export interface WireCapabilities {
  /** IR parameters the wire has no field for: left out, with a warning. */
  lacks: readonly ParamName[];
  /** The highest temperature the wire accepts; a higher one is clamped to it. */
  maxTemperature: number;
  /** Whether a tool result may carry images (SPEC: text only across providers where it cannot). */
  toolResultImages: boolean;
}

/**
 * The caller's name for each parameter (the alpha name where the families differ) and whether SPEC
 * drops it without a word: the alpha pass-through fields off alpha upstreams, and `thinking` off
 * native beta upstreams. `user` is an identity the gateway itself keeps, not a generation setting.
 */
const FIELDS: Readonly<Record<ParamName, { field: string; silent?: true }>> = {
  maxTokens: { field: 'max_tokens' },
  temperature: { field: 'temperature' },
  topP: { field: 'top_p' },
  topK: { field: 'top_k' },
  stop: { field: 'stop' },
  seed: { field: 'seed', silent: true },
  responseFormat: { field: 'response_format', silent: true },
  thinking: { field: 'thinking', silent: true },
  parallelToolCalls: { field: 'parallel_tool_calls', silent: true },
  user: { field: 'user', silent: true },
  presencePenalty: { field: 'presence_penalty' },
  frequencyPenalty: { field: 'frequency_penalty' },
  logitBias: { field: 'logit_bias' },
};

/** The wire has no field for the parameter; silent where SPEC says so. */
export function lacked(param: ParamName): EncodeWarning {
  const f = FIELDS[param];
  return f.silent ? { code: `dropped:${f.field}`, silent: true } : { code: `dropped:${f.field}` };
}

/** Left out for a reason of this call (a conflict, a content kind the wire cannot carry): always said. */
export function dropped(what: ParamName | string): EncodeWarning {
  return { code: `dropped:${what in FIELDS ? FIELDS[what as ParamName].field : what}` };
}

export function clamped(what: ParamName | string): EncodeWarning {
  return { code: `clamped:${what in FIELDS ? FIELDS[what as ParamName].field : what}` };
}

/** One warning per parameter the call set and the wire lacks, in the order of `lacks`. */
export function lackedParams(p: Params, caps: WireCapabilities): EncodeWarning[] {
  return caps.lacks.filter((name) => p[name] !== undefined).map(lacked);
}

/** The caller's temperature within the wire's range, and the warning when it had to move. */
export function fitTemperature(
  t: number | undefined,
  caps: WireCapabilities,
  warnings: EncodeWarning[],
): number | undefined {
  if (t === undefined || t <= caps.maxTemperature) return t;
  warnings.push(clamped('temperature'));
  return caps.maxTemperature;
}

/** Images in tool results, said once per call, for wires that carry only text there. */
export function toolResultImageWarnings(messages: readonly Message[], caps: WireCapabilities): EncodeWarning[] {
  if (caps.toolResultImages) return [];
  const carriesImage = messages.some((m) =>
    m.content.some((b) => b.type === 'tool_result' && b.content.some((c) => c.type === 'image')),
  );
  return carriesImage ? [dropped('tool_result_image')] : [];
}

/** Each code once, first occurrence kept (an encoder may meet the same loss in many blocks). */
export function uniqueWarnings(warnings: readonly EncodeWarning[]): EncodeWarning[] {
  const seen = new Set<string>();
  const out: EncodeWarning[] = [];
  for (const w of warnings) {
    if (seen.has(w.code)) continue;
    seen.add(w.code);
    out.push(w);
  }
  return out;
}
