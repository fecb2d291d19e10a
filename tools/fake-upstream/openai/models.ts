// GET /models and /models/{id}: a fixed catalogue per vendor; any id is retrievable so scripted names work.
import { commonHeaders, type OaiVendor, type Route } from './env.ts';

const CATALOGUE: Record<OaiVendor, Array<[string, string]>> = {
  openai: [
    ['gpt-4o', 'system'],
    ['gpt-4o-mini', 'system'],
    ['gpt-4.1', 'system'],
    ['o3-mini', 'system'],
    ['text-embedding-3-small', 'system'],
    ['text-embedding-3-large', 'system'],
    ['text-embedding-ada-002', 'openai-internal'],
    ['dall-e-3', 'system'],
    ['gpt-image-1', 'system'],
    ['tts-1', 'openai-internal'],
    ['whisper-1', 'openai-internal'],
  ],
  azure: [
    ['gpt-4o', 'system'],
    ['text-embedding-3-small', 'system'],
  ],
  together: [
    ['meta-llama/Llama-3.3-70B-Instruct-Turbo', 'Meta'],
    ['Qwen/Qwen2.5-72B-Instruct-Turbo', 'Qwen'],
    ['togethercomputer/m2-bert-80M-8k-retrieval', 'Together'],
    ['BAAI/bge-large-en-v1.5', 'BAAI'],
  ],
  fireworks: [
    ['accounts/fireworks/models/llama-v3p1-70b-instruct', 'fireworks'],
    ['accounts/fireworks/models/qwen2p5-72b-instruct', 'fireworks'],
    ['nomic-ai/nomic-embed-text-v1.5', 'fireworks'],
  ],
};

const CREATED = 1_700_000_000;

function modelObject(id: string, ownedBy: string) {
  return { id, object: 'model', created: CREATED, owned_by: ownedBy };
}

export const handleListModels: Route = async (ctx, env) => {
  const data = CATALOGUE[env.vendor].map(([id, owner]) => modelObject(id, owner));
  ctx.sendJson(200, { object: 'list', data }, commonHeaders());
};

export const handleGetModel: Route = async (ctx, env, [id]) => {
  const known = CATALOGUE[env.vendor].find(([m]) => m === id);
  ctx.sendJson(200, modelObject(id, known ? known[1] : 'system'), commonHeaders());
};
