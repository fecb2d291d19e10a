// The text `switchyard demo` prints: where everything runs, what was set up, and snippets with the real
// base URL and key filled in, so each one can be pasted as is. Section headers start with `==> ` so
// that a script (and the demo's own test) can cut the output into its parts.
import type { Seeded } from './demo-setup.ts';

export const READY_LINE = 'Switchyard demo ready';

export interface DemoInfo {
  gatewayUrl: string;
  fakeUrl: string;
  adminKey: string;
  dataDir: string;
  /** True when the data dir is temporary and removed on exit. */
  temporary: boolean;
  seeded: Seeded;
}

/** Quoted for the shell, so that a value holding a single quote still pastes as one word. */
function sq(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

function curlSnippets(url: string, key: string): string {
  const json = (body: unknown) => sq(JSON.stringify(body));
  const hello = [{ role: 'user', content: 'Hello' }];
  return [
    '# chat completions (alpha family) through the fallback config: the first attempt fails, the second answers',
    `curl -s ${url}/alpha/v1/chat/completions -H ${sq(`authorization: Bearer ${key}`)} \\`,
    `  -H 'content-type: application/json' -d ${json({ model: '@fallback', messages: hello })}`,
    '',
    '# messages (beta family) through the custom rules config; the tier=gold tag picks the "gold" rule',
    `curl -s ${url}/beta/v1/messages -H ${sq(`x-api-key: ${key}`)} -H 'x-svc-user-tags: tier=gold' \\`,
    `  -H 'content-type: application/json' -d ${json({ model: '@custom-rules', max_tokens: 256, messages: hello })}`,
    '',
    '# a stream, straight to one vendor by model name',
    `curl -sN ${url}/alpha/v1/chat/completions -H ${sq(`authorization: Bearer ${key}`)} \\`,
    `  -H 'content-type: application/json' -d ${json({ model: 'google/gemini-2.0-flash', stream: true, messages: hello })}`,
    '',
    '# the routing decision only (no upstream call): which A/B variant this user gets',
    `curl -s ${url}/alpha/v1/chat/completions -H ${sq(`authorization: Bearer ${key}`)} \\`,
    `  -H 'x-svc-dry-run: true' -H 'x-svc-user-id: alice' \\`,
    `  -H 'content-type: application/json' -d ${json({ model: '@ab-test', messages: hello })}`,
    '',
    '# the management API: routing configs and provider credentials',
    `curl -s ${url}/manage/v1/routing-configs -H ${sq(`authorization: Bearer ${key}`)}`,
    `curl -s ${url}/manage/v1/providers -H ${sq(`authorization: Bearer ${key}`)}`,
  ].join('\n');
}

function openaiSnippet(url: string, key: string): string {
  return [
    "import OpenAI from 'openai';",
    '',
    `const openai = new OpenAI({ apiKey: '${key}', baseURL: '${url}/alpha/v1' });`,
    'const chat = await openai.chat.completions.create({',
    "  model: '@cost-optimized',",
    "  messages: [{ role: 'user', content: 'Hello' }],",
    '});',
    'console.log(chat.model, chat.choices[0].message.content);',
  ].join('\n');
}

function anthropicSnippet(url: string, key: string): string {
  return [
    "import Anthropic from '@anthropic-ai/sdk';",
    '',
    `const anthropic = new Anthropic({ apiKey: '${key}', baseURL: '${url}/beta' });`,
    'const message = await anthropic.messages.create({',
    "  model: '@cascade',",
    '  max_tokens: 256,',
    "  messages: [{ role: 'user', content: 'Hello' }],",
    '});',
    "for (const block of message.content) if (block.type === 'text') console.log(message.model, block.text);",
  ].join('\n');
}

export function demoText(info: DemoInfo): string {
  const { gatewayUrl: url, adminKey: key, seeded } = info;
  const width = Math.max(...seeded.configs.map((c) => c.slug.length)) + 2;
  const configs = seeded.configs.map((c) => `  @${c.slug.padEnd(width)}${c.strategy.padEnd(19)}${c.summary}`);
  const providers = seeded.providers.map((p) => `  ${p.vendor.padEnd(14)}${p.id}`);
  return [
    READY_LINE,
    '',
    `Gateway        ${url}`,
    `Admin API key  ${key}`,
    `Fake upstream  ${info.fakeUrl} (the seven vendors emulated; append scripts such as -fail-429 or -slow-2000 to a model name)`,
    `Data dir       ${info.dataDir}${info.temporary ? ' (temporary, removed on exit)' : ''}`,
    '',
    'Provider credentials, all pointed at the fake upstream:',
    ...providers,
    '',
    'Routing configs (send model "@<slug>" through either family):',
    ...configs,
    '',
    '==> curl',
    '',
    curlSnippets(url, key),
    '',
    '==> openai SDK (npm i openai; save as demo-openai.mjs and run node demo-openai.mjs)',
    '',
    openaiSnippet(url, key),
    '',
    '==> @anthropic-ai/sdk (npm i @anthropic-ai/sdk; save as demo-anthropic.mjs and run node demo-anthropic.mjs)',
    '',
    anthropicSnippet(url, key),
    '',
    '==> Ctrl+C stops the gateway and the fake upstream.',
    '',
  ].join('\n');
}
