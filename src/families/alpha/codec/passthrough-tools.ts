// Pass-through relays of alpha-wire upstream streams must obey the same SPEC rule as translated streams:
// complete tool calls are surfaced on the finish chunk. This holds tool_call fragments per choice and
// per call index and releases them whole; every other chunk passes unchanged.
import type { JsonObject } from '../../../ir/types.ts';
import { isRecord } from '../../../util/json.ts';

interface HeldCall {
  id: string;
  type: string;
  name: string;
  args: string;
}

function hasContent(choice: Record<string, unknown>): boolean {
  if (choice.finish_reason !== undefined && choice.finish_reason !== null) return true;
  if (choice.logprobs !== undefined && choice.logprobs !== null) return true;
  const delta = choice.delta;
  return isRecord(delta) && Object.values(delta).some((v) => v !== null && v !== undefined);
}

export class PassthroughToolAccumulator {
  /** choice index -> tool call index -> accumulated call. */
  private readonly held = new Map<number, Map<number, HeldCall>>();
  /** The newest chunk with choices: its id/object/created/model head a flush at end(). */
  private last: JsonObject | null = null;

  /** Returns the chunks to relay for one parsed upstream chunk (zero or one). */
  push(chunk: unknown): JsonObject[] {
    if (!isRecord(chunk) || !Array.isArray(chunk.choices)) return isRecord(chunk) ? [chunk as JsonObject] : [];
    this.last = chunk as JsonObject;
    // Most chunks carry text only: they are relayed as they are, without copying their choices.
    if (!chunk.choices.some((c: unknown) => this.needsEdit(c))) return [chunk as JsonObject];
    let touched = false;
    const choices = chunk.choices.map((choice: unknown) => {
      if (!isRecord(choice)) return choice;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      let delta = choice.delta;
      if (isRecord(delta) && Array.isArray(delta.tool_calls)) {
        touched = true;
        this.hold(index, delta.tool_calls);
        const { tool_calls: _fragments, ...rest } = delta;
        delta = rest;
      }
      if (choice.finish_reason !== undefined && choice.finish_reason !== null && this.held.has(index)) {
        touched = true;
        delta = { ...(isRecord(delta) ? delta : {}), tool_calls: this.release(index) };
      }
      return touched ? { ...choice, delta } : choice;
    });
    if (!touched) return [chunk as JsonObject];
    const kept = choices.filter((c) => !isRecord(c) || hasContent(c));
    const hasUsage = chunk.usage !== undefined && chunk.usage !== null;
    if (kept.length === 0 && !hasUsage) return [];
    return [{ ...chunk, choices: kept } as JsonObject];
  }

  /** Upstream closed: calls still held (no finish chunk arrived) are flushed so they are not lost. */
  end(): JsonObject[] {
    const last = this.last;
    if (this.held.size === 0 || !last) return [];
    const choices = [...this.held.keys()].map((index) => ({
      index,
      delta: { tool_calls: this.release(index) },
      logprobs: null,
      finish_reason: 'tool_calls',
    }));
    return [{ id: last.id, object: last.object, created: last.created, model: last.model, choices }];
  }

  private needsEdit(choice: unknown): boolean {
    if (!isRecord(choice)) return false;
    if (isRecord(choice.delta) && Array.isArray(choice.delta.tool_calls)) return true;
    const index = typeof choice.index === 'number' ? choice.index : 0;
    return choice.finish_reason !== undefined && choice.finish_reason !== null && this.held.has(index);
  }

  private hold(choiceIndex: number, fragments: unknown[]): void {
    let calls = this.held.get(choiceIndex);
    if (!calls) {
      calls = new Map();
      this.held.set(choiceIndex, calls);
    }
    for (const raw of fragments) {
      if (!isRecord(raw)) continue;
      const at = typeof raw.index === 'number' ? raw.index : calls.size;
      const call = calls.get(at) ?? { id: '', type: 'function', name: '', args: '' };
      if (typeof raw.id === 'string' && raw.id !== '') call.id = raw.id;
      if (typeof raw.type === 'string') call.type = raw.type;
      const fn = raw.function;
      if (isRecord(fn)) {
        if (typeof fn.name === 'string' && call.name === '') call.name = fn.name;
        if (typeof fn.arguments === 'string') call.args += fn.arguments;
      }
      calls.set(at, call);
    }
  }

  private release(choiceIndex: number): JsonObject[] {
    const calls = this.held.get(choiceIndex) ?? new Map<number, HeldCall>();
    this.held.delete(choiceIndex);
    return [...calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]) => ({ index, id: c.id, type: c.type, function: { name: c.name, arguments: c.args } }));
  }
}
