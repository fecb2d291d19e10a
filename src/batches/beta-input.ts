// The create body of a beta message batch, checked whole before anything is stored: at least one
// request, custom_ids unique and in Anthropic's form, and every `params` a messages request the beta
// decoder accepts (not streaming). Any problem refuses the batch with 400 invalid_request_error.
import { GatewayError } from '../errors/gateway-error.ts';
import { betaCodec } from '../families/beta/codec.ts';
import type { JsonValue } from '../ir/types.ts';
import type { NewItem } from '../store/batches.ts';
import { isRecord } from '../util/json.ts';
import type { ItemEstimate } from './deps.ts';

/** Anthropic's cap on requests per message batch. */
export const MAX_BETA_REQUESTS = 100_000;
const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

const refuse = (message: string, param: string) => new GatewayError('invalid_request', { message, param });

export interface BetaInput {
  items: NewItem[];
  /** The model of the first request (what the batch's log rows name). */
  model: string;
  /** Every request's model, as written. */
  models: string[];
  /** The requests, as the budget check estimates them. */
  estimates: Omit<ItemEstimate, 'principal'>[];
}

export function parseBetaInput(body: unknown): BetaInput {
  if (!isRecord(body) || !Array.isArray(body.requests)) throw refuse('requests must be an array', 'requests');
  const requests: unknown[] = body.requests;
  if (requests.length === 0) throw refuse('requests must hold at least one request', 'requests');
  if (requests.length > MAX_BETA_REQUESTS)
    throw refuse(`a message batch holds at most ${MAX_BETA_REQUESTS} requests`, 'requests');
  const seen = new Set<string>();
  const items: NewItem[] = [];
  const models: string[] = [];
  const estimates: BetaInput['estimates'] = [];
  requests.forEach((r, idx) => {
    const at = `requests.${idx}`;
    if (!isRecord(r)) throw refuse('each request must be an object with custom_id and params', at);
    const id = r.custom_id;
    if (typeof id !== 'string' || !CUSTOM_ID.test(id))
      throw refuse('custom_id must be 1-64 letters, digits, "_" or "-"', `${at}.custom_id`);
    if (seen.has(id)) throw refuse(`custom_id "${id}" appears more than once`, `${at}.custom_id`);
    seen.add(id);
    const params = r.params;
    if (!isRecord(params)) throw refuse('params must be a messages request object', `${at}.params`);
    if (params.stream === true) throw refuse('stream is not supported inside a batch', `${at}.params.stream`);
    try {
      const { ir } = betaCodec.decode(params);
      estimates.push({ kind: 'chat', body: params, modelRequested: ir.model, chat: { ir } });
    } catch (err) {
      if (err instanceof GatewayError)
        throw refuse(err.message, err.param === null ? `${at}.params` : `${at}.params.${err.param}`);
      throw err;
    }
    models.push(String(params.model));
    items.push({ idx, customId: id, request: params as JsonValue });
  });
  return { items, model: models[0], models, estimates };
}
