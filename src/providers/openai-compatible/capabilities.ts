// What the OpenAI chat-completions wire carries of an IR request, per host (the same shape in every
// vendor folder). The optional APIs some hosts add (files, batches, Responses, media) are in
// files-api.ts, batches-api.ts and raw-api.ts.
import type { WireCapabilities } from '../shared/warnings.ts';
import type { OpenAIVendor } from './embeddings.ts';

const OPENAI: WireCapabilities = {
  lacks: ['topK', 'thinking'],
  maxTemperature: 2,
  toolResultImages: false,
};

/** Together and Fireworks take `top_k` on the same wire. */
const WITH_TOP_K: WireCapabilities = { ...OPENAI, lacks: ['thinking'] };

const BY_VENDOR: Readonly<Record<OpenAIVendor, WireCapabilities>> = {
  openai: OPENAI,
  'azure-openai': OPENAI,
  together: WITH_TOP_K,
  fireworks: WITH_TOP_K,
};

export function openaiCapabilities(vendor: OpenAIVendor): WireCapabilities {
  return BY_VENDOR[vendor];
}
