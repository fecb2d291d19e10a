// POST /chat/completions: validation, scripted failures and delays, then JSON or SSE.
import { parseScript, sleep } from '../script.ts';
import { answerChat } from './chat-build.ts';
import { chatCompletionText } from './chat-serialize.ts';
import { writeChatStream } from './chat-stream.ts';
import { validateChat } from './chat-validate.ts';
import { commonHeaders, type Route } from './env.ts';
import { scriptedFailure, sendError } from './errors.ts';
import { isRecord, type Json, str } from './util.ts';

export const handleChat: Route = async (ctx, env) => {
  const body = await ctx.json();
  if (env.model !== undefined && isRecord(body)) body.model = env.model;
  const problem = validateChat(body);
  if (problem) return sendError(ctx, problem);
  const req = body as Json;
  const script = parseScript(str(req.model));
  if (script.hang) return; // never answer: timeout tests
  if (script.slowMs > 0) await sleep(script.slowMs);
  const fail = scriptedFailure(script);
  if (fail) return sendError(ctx, fail);
  const answer = answerChat(req);
  if (req.stream === true) {
    const so = req.stream_options;
    const includeUsage = isRecord(so) && so.include_usage === true;
    const obfuscation = env.vendor === 'openai' && !(isRecord(so) && so.include_obfuscation === false);
    return writeChatStream(
      ctx,
      answer,
      { includeUsage, promptFilter: env.vendor === 'azure', obfuscation },
      commonHeaders(),
    );
  }
  ctx.send(200, chatCompletionText(answer), { 'content-type': 'application/json', ...commonHeaders() });
};
