// Content of chat-completions messages -> IR blocks. Each role accepts a different subset of part types;
// the helpers here are per role so the error message can say what that role allows.

import { invalid } from '../../../errors/gateway-error.ts';
import type { ImageBlock, ImageSource, TextBlock } from '../../../ir/types.ts';
import { describe, expectArray, expectObject, expectString } from '../../shared/json.ts';

const DATA_URL = /^data:([^;,]+)((?:;[^;,]+)*?);base64,(.*)$/s;

export function imageSourceFromUrl(url: string, path: string): ImageSource {
  if (url.startsWith('data:')) {
    const m = DATA_URL.exec(url);
    if (!m) invalid(path, 'data URLs must have the form data:<media type>;base64,<data>');
    return { kind: 'base64', mediaType: m[1], data: m[3] };
  }
  if (/^https?:\/\//i.test(url)) return { kind: 'url', url };
  return invalid(path, 'image URL must be an http(s) URL or a base64 data URL');
}

function imagePart(part: Record<string, unknown>, path: string): ImageBlock {
  const image = expectObject(part.image_url, `${path}.image_url`);
  const url = expectString(image.url, `${path}.image_url.url`);
  return { type: 'image', source: imageSourceFromUrl(url, `${path}.image_url.url`) };
}

function partType(part: unknown, path: string): [Record<string, unknown>, string] {
  const obj = expectObject(part, path);
  return [obj, expectString(obj.type, `${path}.type`)];
}

function textOf(part: Record<string, unknown>, path: string): TextBlock {
  return { type: 'text', text: expectString(part.text, `${path}.text`) };
}

function contentParts(content: unknown, path: string): unknown[] {
  const parts = expectArray(content, path);
  if (parts.length === 0) invalid(path, 'must not be an empty array');
  return parts;
}

/** User turns: text and images. Audio and files have no IR block yet. */
export function decodeUserContent(content: unknown, path: string): Array<TextBlock | ImageBlock> {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return contentParts(content, path).map((raw, i) => {
    const p = `${path}[${i}]`;
    const [part, type] = partType(raw, p);
    switch (type) {
      case 'text':
        return textOf(part, p);
      case 'image_url':
        return imagePart(part, p);
      case 'input_audio':
      case 'file':
        return invalid(
          `${p}.type`,
          `content part type "${type}" is not supported by this gateway`,
          'unsupported_content',
        );
      default:
        return invalid(`${p}.type`, `unknown content part type "${type}"`);
    }
  });
}

/** System and developer turns: text only. Empty texts are skipped (messages-style upstreams reject them). */
export function decodeSystemContent(content: unknown, path: string): TextBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return contentParts(content, path).flatMap((raw, i) => {
    const p = `${path}[${i}]`;
    const [part, type] = partType(raw, p);
    if (type !== 'text') invalid(`${p}.type`, `system messages accept only text parts, got "${type}"`);
    const block = textOf(part, p);
    return block.text === '' ? [] : [block];
  });
}

/** Assistant turns: text, and refusal parts which are the assistant's own words. */
export function decodeAssistantContent(content: unknown, path: string): TextBlock[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return contentParts(content, path).map((raw, i) => {
    const p = `${path}[${i}]`;
    const [part, type] = partType(raw, p);
    if (type === 'text') return textOf(part, p);
    if (type === 'refusal') return { type: 'text', text: expectString(part.refusal, `${p}.refusal`) };
    return invalid(`${p}.type`, `assistant messages accept only text and refusal parts, got "${type}"`);
  });
}

/**
 * Tool replies. SPEC: tool results are text-only on the cross-provider path, so image parts are dropped
 * here rather than carried to an adapter that would drop them anyway.
 */
export function decodeToolContent(content: unknown, path: string): TextBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (content === undefined || content === null)
    invalid(path, `expected a string or an array of parts, got ${describe(content)}`);
  return expectArray(content, path).flatMap((raw, i) => {
    const p = `${path}[${i}]`;
    const [part, type] = partType(raw, p);
    if (type === 'text') return [textOf(part, p)];
    if (type === 'image_url') return [];
    return invalid(`${p}.type`, `tool messages accept only text parts, got "${type}"`);
  });
}
