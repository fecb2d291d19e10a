// What an OpenAI-wire route needs to know about the vendor it is serving.
import type { FakeContext } from '../context.ts';

export type OaiVendor = 'openai' | 'together' | 'fireworks' | 'azure';

export interface OaiEnv {
  vendor: OaiVendor;
  /** Azure: the deployment name from the URL, used as the model (and for scripting) whatever the body says. */
  model?: string;
  /** URL prefix the client used up to the API root (e.g. `/openai/v1`), for URLs the fake hands out. */
  base: string;
}

export type Route = (ctx: FakeContext, env: OaiEnv, params: string[]) => Promise<void>;

let seq = 0;
/** Headers every OpenAI answer carries. */
export function commonHeaders(): Record<string, string> {
  seq = (seq + 1) % 1_000_000_000;
  return { 'x-request-id': `req_fake${seq.toString(36)}`, 'openai-processing-ms': '1' };
}
