// The four configurations of the OpenAI wire: where each lives and how it authenticates.

import { baseUrlOr } from '../shared/base-url.ts';
import type { Credential } from '../types.ts';
import type { OpenAIVendor } from './embeddings.ts';

/** Classic deployment-style Azure API; GA and accepted by every Azure OpenAI resource. */
export const AZURE_API_VERSION = '2024-10-21';

const DEFAULT_BASE: Record<Exclude<OpenAIVendor, 'azure-openai'>, string> = {
  openai: 'https://api.openai.com/v1',
  together: 'https://api.together.xyz/v1',
  fireworks: 'https://api.fireworks.ai/inference/v1',
};

export function baseUrl(vendor: OpenAIVendor, credential: Credential): string {
  if (vendor === 'azure-openai') {
    if (!credential.baseUrl)
      throw new Error('azure-openai needs the resource base URL (https://<resource>.openai.azure.com)');
    return baseUrlOr(credential.baseUrl, '');
  }
  return baseUrlOr(credential.baseUrl, DEFAULT_BASE[vendor]);
}

export type Operation = 'chat/completions' | 'embeddings';

/** For azure-openai, `model` is the deployment name and is addressed in the path. */
export function operationUrl(vendor: OpenAIVendor, credential: Credential, op: Operation, model: string): string {
  const base = baseUrl(vendor, credential);
  if (vendor !== 'azure-openai') return `${base}/${op}`;
  return `${base}/openai/deployments/${encodeURIComponent(model)}/${op}?api-version=${AZURE_API_VERSION}`;
}

export function modelsUrl(vendor: OpenAIVendor, credential: Credential): string {
  const base = baseUrl(vendor, credential);
  return vendor === 'azure-openai' ? `${base}/openai/models?api-version=${AZURE_API_VERSION}` : `${base}/models`;
}

export function authHeaders(vendor: OpenAIVendor, credential: Credential): Record<string, string> {
  return vendor === 'azure-openai'
    ? { 'api-key': credential.apiKey }
    : { authorization: `Bearer ${credential.apiKey}` };
}
