// Hot path: the `chat.completion` body as a string without building the object first. Benchmarks
// hammer this endpoint, and stringifying a fresh nested object per request was most of our CPU time.
// Must stay byte-identical to JSON.stringify(chatCompletionJson(a)) (checked in a test).
import type { ChatAnswer } from './chat-build.ts';

const USAGE_DETAILS =
  '"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}';

export function chatCompletionText(a: ChatAnswer): string {
  let message = `{"role":"assistant","content":${a.text === null ? 'null' : JSON.stringify(a.text)},"refusal":null,"annotations":[]`;
  if (a.toolCalls.length > 0) {
    const calls = a.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
    message += `,"tool_calls":${JSON.stringify(calls)}`;
  }
  message += '}';
  let choices = '';
  for (let i = 0; i < a.n; i++) {
    if (i > 0) choices += ',';
    choices += `{"index":${i},"message":${message},"logprobs":null,"finish_reason":"${a.finishReason}"}`;
  }
  const u = a.usage;
  return (
    `{"id":"${a.id}","object":"chat.completion","created":${a.created},"model":${JSON.stringify(a.model)},"choices":[${choices}],` +
    `"usage":{"prompt_tokens":${u.prompt_tokens},"completion_tokens":${u.completion_tokens},"total_tokens":${u.total_tokens},${USAGE_DETAILS}},` +
    '"service_tier":"default","system_fingerprint":"fp_fake0001"}'
  );
}
