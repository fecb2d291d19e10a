// GET /v1beta/models and /v1beta/models/{m}: a small fixed catalogue.
import type { FakeContext } from '../context.ts';
import { sendGoogleError } from './errors.ts';

const GENERATE = ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'];
const EMBED = ['embedContent', 'countTextTokens', 'countTokens', 'asyncBatchEmbedContent'];

const MODELS = [
  { id: 'gemini-2.5-pro', display: 'Gemini 2.5 Pro', input: 1048576, output: 65536, methods: GENERATE, thinking: true },
  {
    id: 'gemini-2.5-flash',
    display: 'Gemini 2.5 Flash',
    input: 1048576,
    output: 65536,
    methods: GENERATE,
    thinking: true,
  },
  {
    id: 'gemini-2.0-flash',
    display: 'Gemini 2.0 Flash',
    input: 1048576,
    output: 8192,
    methods: GENERATE,
    thinking: false,
  },
  {
    id: 'gemini-embedding-001',
    display: 'Gemini Embedding 001',
    input: 2048,
    output: 1,
    methods: EMBED,
    thinking: false,
  },
  { id: 'text-embedding-004', display: 'Text Embedding 004', input: 2048, output: 1, methods: EMBED, thinking: false },
].map((m) => ({
  name: `models/${m.id}`,
  version: '001',
  displayName: m.display,
  inputTokenLimit: m.input,
  outputTokenLimit: m.output,
  supportedGenerationMethods: m.methods,
  ...(m.thinking ? { thinking: true } : {}),
}));

export function listModels(ctx: FakeContext): void {
  ctx.sendJson(200, { models: MODELS });
}

export function getModel(ctx: FakeContext, id: string) {
  const m = MODELS.find((x) => x.name === `models/${id}`);
  if (!m) return sendGoogleError(ctx, 'NOT_FOUND', `models/${id} is not found for API version v1beta.`);
  ctx.sendJson(200, m);
}
