// Family alpha request decoder: chat-completions body -> IR ChatRequest plus the gateway extensions.

import { invalid } from '../../../errors/gateway-error.ts';
import type { ChatRequest } from '../../../ir/types.ts';
import { isRecord } from '../../../util/json.ts';
import { describe, expectObject, optBoolean } from '../../shared/json.ts';
import { readSvcExtensions, type SvcExtensions } from '../../shared/svc.ts';
import { decodeAlphaMessages } from './decode-messages.ts';
import { decodeAlphaParams } from './decode-params.ts';
import { decodeAlphaToolChoice, decodeAlphaTools } from './decode-tools.ts';

export { stripForPassthrough } from './passthrough.ts';

export interface AlphaDecoded {
  ir: ChatRequest;
  svc: SvcExtensions;
  /** `stream_options.include_usage`: the caller wants the trailing usage chunk. */
  includeUsage?: boolean;
}

export function decodeAlphaChat(body: unknown): AlphaDecoded {
  if (!isRecord(body)) invalid('', `request body must be a JSON object, got ${describe(body)}`);
  if (typeof body.model !== 'string' || body.model === '')
    invalid('model', 'is required and must be a non-empty string');
  const { system, messages } = decodeAlphaMessages(body.messages);
  const stream = optBoolean(body.stream, 'stream') ?? false;
  let includeUsage = false;
  if (body.stream_options !== undefined && body.stream_options !== null) {
    const so = expectObject(body.stream_options, 'stream_options');
    includeUsage = optBoolean(so.include_usage, 'stream_options.include_usage') ?? false;
  }
  const ir: ChatRequest = {
    model: body.model,
    system,
    messages,
    tools: decodeAlphaTools(body),
    params: decodeAlphaParams(body),
    stream,
  };
  const toolChoice = decodeAlphaToolChoice(body);
  if (toolChoice) ir.toolChoice = toolChoice;
  return { ir, svc: readSvcExtensions(body), includeUsage: stream && includeUsage };
}
