// IR conversation -> Gemini `contents`. Gemini only knows `user` and `model` turns; tool results
// travel as `functionResponse` parts in a user turn and need the function's name, not its id.
import type { Block, ImageSource, JsonObject, Message } from '../../ir/types.ts';
import { toolInputObject } from '../shared/tool-input.ts';

/** Documented escape hatch for function calls whose thought signature is unknown (gemini-3 requires one). */
const SKIP_SIGNATURE = 'skip_thought_signature_validator';

const EXT_MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
};

function guessMime(url: string): string {
  const ext = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  return (ext && EXT_MIME[ext]) || 'image/jpeg';
}

export function imagePart(source: ImageSource): JsonObject {
  if (source.kind === 'base64') return { inlineData: { mimeType: source.mediaType, data: source.data } };
  const dataUrl = /^data:([^;,]+);base64,(.*)$/s.exec(source.url);
  if (dataUrl) return { inlineData: { mimeType: dataUrl[1], data: dataUrl[2] } };
  return { fileData: { mimeType: guessMime(source.url), fileUri: source.url } };
}

function toolNames(messages: Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) for (const b of m.content) if (b.type === 'tool_use') names.set(b.id, b.name);
  return names;
}

interface TurnState {
  parts: JsonObject[];
  /** Signature decoded from a part that was not itself a thought; it belongs to the next part. */
  pendingSignature?: string;
}

function pushPart(state: TurnState, part: JsonObject): void {
  if (state.pendingSignature) {
    part.thoughtSignature = state.pendingSignature;
    state.pendingSignature = undefined;
  }
  state.parts.push(part);
}

function encodeBlock(block: Block, state: TurnState, names: Map<string, string>, gemini3: boolean): void {
  switch (block.type) {
    case 'text':
      if (block.text) pushPart(state, { text: block.text });
      return;
    case 'image':
      pushPart(state, imagePart(block.source));
      return;
    case 'thinking':
      if (block.thinking) {
        const part: JsonObject = { text: block.thinking, thought: true };
        if (block.signature) part.thoughtSignature = block.signature;
        state.parts.push(part);
      } else if (block.signature) {
        state.pendingSignature = block.signature;
      }
      return;
    case 'redacted_thinking':
      return;
    case 'tool_use': {
      const part: JsonObject = { functionCall: { name: block.name, args: toolInputObject(block.input) } };
      pushPart(state, part);
      if (gemini3 && part.thoughtSignature === undefined) part.thoughtSignature = SKIP_SIGNATURE;
      return;
    }
    case 'tool_result': {
      const text = block.content
        .filter((c) => c.type === 'text')
        .map((c) => c.text)
        .join('');
      const response: JsonObject = block.isError ? { error: text } : { content: text };
      pushPart(state, { functionResponse: { name: names.get(block.toolUseId) ?? block.toolUseId, response } });
      return;
    }
  }
}

/** Consecutive same-role messages are merged: Gemini expects alternating turns. */
export function toGeminiContents(messages: Message[], model: string): JsonObject[] {
  const names = toolNames(messages);
  const gemini3 = /gemini-3/.test(model);
  const contents: JsonObject[] = [];
  let prevRole: string | undefined;
  let state: TurnState = { parts: [] };
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'model' : 'user';
    if (role !== prevRole) {
      state = { parts: [] };
      contents.push({ role, parts: state.parts });
      prevRole = role;
    }
    // Tool results first in a user turn, mirroring the order the calls were made in.
    const ordered =
      role === 'user'
        ? [
            ...message.content.filter((b) => b.type === 'tool_result'),
            ...message.content.filter((b) => b.type !== 'tool_result'),
          ]
        : message.content;
    for (const block of ordered) encodeBlock(block, state, names, gemini3);
  }
  return contents.filter((c) => Array.isArray(c.parts) && c.parts.length > 0);
}
