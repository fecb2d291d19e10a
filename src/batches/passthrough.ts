// Batches the vendor runs: a beta batch whose every model is a native anthropic one, or an alpha batch
// whose input file lives upstream and whose every line names a model of that vendor. They keep the
// vendor's batch discount. The gateway keeps a row per batch (under its own id) with the vendor's
// last object, refreshed on each read and by a poller, and records the batch's cost once, from the
// vendor's results, when it first sees the batch ended. Output files the vendor writes are recorded
// as upstream files, so the caller reads them through the gateway like any other.
import { GatewayError } from '../errors/gateway-error.ts';
import { alphaCodec } from '../families/alpha/codec.ts';
import type { ChatRequest, JsonObject, JsonValue } from '../ir/types.ts';
import type { Principal } from '../live/principals.ts';
import { computeCost } from '../providers/catalog/cost.ts';
import { batchesApi, resolveDirectModel } from '../providers/registry.ts';
import type { Credential, VendorId } from '../providers/types.ts';
import type { BatchPatch, BatchRecord } from '../store/batches.ts';
import type { FileRecord } from '../store/files.ts';
import { isRecord, parseBoundedJson } from '../util/json.ts';
import type { BatchDeps, ItemEstimate } from './deps.ts';
import { batchEvent, recordBatchCost } from './finalize.ts';
import { jsonObjects } from './jsonl.ts';

/** A vendor's answer to forward as it came (status and body), e.g. a refused create. */
export class UpstreamAnswer extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`upstream answered ${status}`);
  }
}

export interface Upstream {
  vendor: VendorId;
  credential: Credential;
  /** Null when the caller's own key (BYOK) reached it: nothing stored can reach it again. */
  credentialId: string | null;
}

const anthropicBatches = batchesApi('anthropic');

const ALPHA_END = new Set(['completed', 'failed', 'expired', 'cancelled']);
const sec = (v: unknown): number | null => (typeof v === 'number' ? v * 1000 : null);
const iso = (v: unknown): number | null => (typeof v === 'string' ? Date.parse(v) : null);
const count = (o: unknown, k: string): number => (isRecord(o) && typeof o[k] === 'number' ? o[k] : 0);

async function json(status: number, body: { text(): Promise<string> }): Promise<JsonObject> {
  const text = await body.text();
  if (status < 200 || status >= 300) throw new UpstreamAnswer(status, text);
  // Kept as the batch's upstream object, so it is bounded like any JSON from outside.
  const parsed = parseBoundedJson(text);
  if (!parsed.ok || !isRecord(parsed.value))
    throw new Error(`the vendor's batch answer is not usable: ${parsed.ok ? 'not an object' : parsed.message}`);
  return parsed.value as JsonObject;
}

/** A chat line's request in IR form, for its estimate; the vendor judges lines the gateway cannot read. */
function decodedOrUndefined(body: unknown): ChatRequest | undefined {
  try {
    return alphaCodec.decode(body).ir;
  } catch {
    return undefined;
  }
}

export class PassThrough {
  readonly #deps: BatchDeps;

  constructor(deps: BatchDeps) {
    this.#deps = deps;
  }

  /** The org's credential for `vendor` (its first), with the caller's BYOK key in its place if sent. */
  upstreamFor(p: Principal, vendor: VendorId, providerKey: string | undefined): Upstream | undefined {
    const stored = this.#deps.pipeline().live.credentialsFor(p.orgId, vendor)[0];
    if (stored === undefined) return undefined;
    const credential = providerKey ? { ...stored.credential, apiKey: providerKey } : stored.credential;
    return { vendor, credential, credentialId: stored.id };
  }

  /** The stored credential a batch went through, as it is now. */
  #reach(b: BatchRecord, vendor: VendorId): Upstream {
    const stored =
      b.credentialId === null ? undefined : this.#deps.pipeline().live.credentialById(b.orgId, b.credentialId);
    if (stored === undefined) throw new GatewayError('provider_not_configured', { vars: { vendor } });
    return { vendor, credential: stored.credential, credentialId: stored.id };
  }

  /** Beta: every model a native anthropic one (the prefix is dropped on the way). */
  static betaModels(models: readonly string[]): string[] | undefined {
    const out: string[] = [];
    for (const m of models) {
      const r = resolveDirectModel(m);
      if (r?.vendor !== 'anthropic') return undefined;
      out.push(r.model);
    }
    return out;
  }

  async createBeta(
    b: BatchRecord,
    requests: readonly JsonObject[],
    up: Upstream,
    version?: string,
  ): Promise<BatchRecord> {
    const res = await anthropicBatches.create(up.credential, { requests }, { version });
    const obj = await json(res.status, res.body);
    const row = { ...b, mode: 'passthrough' as const, credentialId: up.credentialId, upstreamId: String(obj.id) };
    const synced = { ...row, ...this.#betaPatch(obj) } as BatchRecord;
    await this.#deps.batches.create(synced, []);
    return synced;
  }

  /** Alpha: the models of an upstream input file's lines, if every one is that vendor's own. */
  /**
   * Alpha: whether an upstream input file can go to its vendor as it is (every line names one of
   * the vendor's own models, without a prefix); its lines as the budget check estimates them when so.
   */
  async alphaEligible(file: FileRecord): Promise<Omit<ItemEstimate, 'principal'>[] | undefined> {
    if (file.location !== 'upstream' || (file.vendor !== 'openai' && file.vendor !== 'azure-openai')) return undefined;
    const estimates: Omit<ItemEstimate, 'principal'>[] = [];
    for await (const line of jsonObjects(await this.#deps.openFile(file), this.#deps.settings.maxLineBytes)) {
      const body = isRecord(line.body) ? line.body : undefined;
      const model = body?.model;
      if (typeof model !== 'string' || model.includes('/') || model.startsWith('@')) return undefined;
      const r = resolveDirectModel(model);
      if (file.vendor === 'openai' && r !== undefined && r.vendor !== 'openai') return undefined;
      const ir = line.url === '/v1/chat/completions' ? decodedOrUndefined(body) : undefined;
      estimates.push({
        kind: ir ? 'chat' : 'embeddings',
        body,
        modelRequested: model,
        ...(ir ? { chat: { ir } } : {}),
      });
    }
    return estimates;
  }

  async createAlpha(b: BatchRecord, file: FileRecord, providerKey: string | undefined): Promise<BatchRecord> {
    const vendor = file.vendor as 'openai' | 'azure-openai';
    const stored = this.#reach({ ...b, credentialId: file.credentialId }, vendor);
    const credential = providerKey ? { ...stored.credential, apiKey: providerKey } : stored.credential;
    const res = await batchesApi(vendor).create(credential, {
      input_file_id: file.id,
      endpoint: b.endpoint,
      completion_window: b.completionWindow,
      ...(b.metadata ? { metadata: b.metadata } : {}),
    });
    const obj = await json(res.status, res.body);
    const row = { ...b, mode: 'passthrough' as const, credentialId: file.credentialId, upstreamId: String(obj.id) };
    const synced = { ...row, ...this.#alphaPatch(obj) } as BatchRecord;
    await this.#deps.batches.create(synced, []);
    return synced;
  }

  #betaPatch(obj: JsonObject): BatchPatch {
    const c = obj.request_counts;
    const total = ['processing', 'succeeded', 'errored', 'canceled', 'expired'].reduce((n, k) => n + count(c, k), 0);
    return {
      status: String(obj.processing_status),
      upstream: obj,
      total,
      succeeded: count(c, 'succeeded'),
      errored: count(c, 'errored'),
      canceled: count(c, 'canceled'),
      expired: count(c, 'expired'),
      cancellingAt: iso(obj.cancel_initiated_at),
      endedAt: iso(obj.ended_at),
      expiresAt: iso(obj.expires_at) ?? undefined,
    };
  }

  #alphaPatch(obj: JsonObject): BatchPatch {
    const c = obj.request_counts;
    const status = String(obj.status);
    const ended = obj.completed_at ?? obj.failed_at ?? obj.expired_at ?? obj.cancelled_at;
    return {
      status,
      upstream: obj,
      errors: (obj.errors ?? null) as JsonValue,
      total: count(c, 'total'),
      succeeded: count(c, 'completed'),
      errored: count(c, 'failed'),
      inProgressAt: sec(obj.in_progress_at),
      finalizingAt: sec(obj.finalizing_at),
      cancellingAt: sec(obj.cancelling_at),
      endedAt: ALPHA_END.has(status) ? sec(ended) : null,
      expiresAt: sec(obj.expires_at) ?? undefined,
      outputFileId: typeof obj.output_file_id === 'string' ? obj.output_file_id : null,
      errorFileId: typeof obj.error_file_id === 'string' ? obj.error_file_id : null,
    };
  }

  /** Which OpenAI-wire vendor holds an alpha batch: its credential's. */
  #alphaVendor(b: BatchRecord): 'openai' | 'azure-openai' {
    const stored =
      b.credentialId === null ? undefined : this.#deps.pipeline().live.credentialById(b.orgId, b.credentialId);
    return stored?.vendor === 'azure-openai' ? 'azure-openai' : 'openai';
  }

  /** The vendor's current object into the row; the batch's cost once it has ended. */
  async refresh(b: BatchRecord): Promise<BatchRecord> {
    const deps = this.#deps;
    let patch: BatchPatch;
    let ended: boolean;
    if (b.family === 'beta') {
      const up = this.#reach(b, 'anthropic');
      const res = await anthropicBatches.get(up.credential, b.upstreamId ?? '');
      patch = this.#betaPatch(await json(res.status, res.body));
      ended = patch.status === 'ended';
    } else {
      const vendor = this.#alphaVendor(b);
      const up = this.#reach(b, vendor);
      const res = await batchesApi(vendor).get(up.credential, b.upstreamId ?? '');
      patch = this.#alphaPatch(await json(res.status, res.body));
      ended = ALPHA_END.has(String(patch.status));
      await this.#registerOutputs(b, patch, up);
    }
    if (!ended || b.costRecordedAt !== null) {
      await deps.batches.transition(b.id, [b.status], patch);
      return { ...b, ...patch } as BatchRecord;
    }
    const next = { ...b, ...patch } as BatchRecord;
    const spent = await this.#cost(next);
    const done = { ...next, ...spent, costRecordedAt: Date.now() };
    recordBatchCost(deps, done, String(patch.status), done.endedAt ?? done.costRecordedAt);
    await deps.batches.transition(b.id, [b.status], { ...patch, ...spent, costRecordedAt: done.costRecordedAt }, [
      batchEvent(done, String(patch.status)),
    ]);
    return done;
  }

  /** The vendor's output and error files, recorded as upstream files of the batch's project. */
  async #registerOutputs(b: BatchRecord, patch: BatchPatch, up: Upstream): Promise<void> {
    for (const [id, origin] of [
      [patch.outputFileId, 'batch_output'],
      [patch.errorFileId, 'batch_error'],
    ] as const) {
      if (typeof id !== 'string' || (await this.#deps.files.get(b.orgId, id)) !== undefined) continue;
      await this.#deps.files.insert({
        id,
        orgId: b.orgId,
        projectId: b.projectId,
        purpose: 'batch_output',
        filename: `${b.id}_${origin === 'batch_output' ? 'output' : 'error'}.jsonl`,
        bytes: 0,
        contentType: 'application/jsonl',
        location: 'upstream',
        storage: null,
        credentialId: up.credentialId,
        vendor: up.vendor,
        origin,
        status: 'processed',
        createdAt: Date.now(),
        expiresAt: null,
      });
    }
  }

  /** What the vendor's results say the batch cost, at its batch price. */
  async #cost(b: BatchRecord): Promise<{ inputTokens: number; outputTokens: number; costUsd: number }> {
    const total = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
    const add = (vendor: VendorId, model: string, usage: { input: number; output: number }) => {
      total.inputTokens += usage.input;
      total.outputTokens += usage.output;
      const price = this.#deps.pipeline().live.priceOverride(b.orgId, vendor, model);
      total.costUsd += computeCost(vendor, model, usage, { batch: true, price }).costUsd;
    };
    if (b.family === 'beta') {
      for await (const line of jsonObjects(await this.results(b), this.#deps.settings.maxLineBytes)) {
        const r = line.result;
        if (!isRecord(r) || r.type !== 'succeeded' || !isRecord(r.message)) continue;
        add('anthropic', String(r.message.model), anthropicBatches.usage(r.message.usage));
      }
      return total;
    }
    if (b.outputFileId === null) return total;
    const file = await this.#deps.files.get(b.orgId, b.outputFileId);
    if (file === undefined) return total;
    const api = batchesApi(this.#alphaVendor(b));
    for await (const line of jsonObjects(await this.#deps.openFile(file), this.#deps.settings.maxLineBytes)) {
      const body = isRecord(line.response) && isRecord(line.response.body) ? line.response.body : undefined;
      const usage = body === undefined ? undefined : api.usage(body.usage);
      if (body !== undefined && usage !== undefined) add(file.vendor as VendorId, String(body.model), usage);
    }
    return total;
  }

  async cancel(b: BatchRecord): Promise<BatchRecord> {
    if (b.family === 'beta') {
      const up = this.#reach(b, 'anthropic');
      const res = await anthropicBatches.cancel(up.credential, b.upstreamId ?? '');
      await json(res.status, res.body);
    } else {
      const vendor = this.#alphaVendor(b);
      const up = this.#reach(b, vendor);
      const res = await batchesApi(vendor).cancel(up.credential, b.upstreamId ?? '');
      await json(res.status, res.body);
    }
    return this.refresh(b);
  }

  async delete(b: BatchRecord): Promise<void> {
    const up = this.#reach(b, 'anthropic');
    const res = await anthropicBatches.delete(up.credential, b.upstreamId ?? '');
    // Already gone upstream is as good as deleted.
    if (res.status === 404) await res.body.dump();
    else await json(res.status, res.body);
  }

  /** The vendor's JSONL results, streamed through. */
  async results(b: BatchRecord): Promise<AsyncIterable<Uint8Array>> {
    const up = this.#reach(b, 'anthropic');
    const url = isRecord(b.upstream) && typeof b.upstream.results_url === 'string' ? b.upstream.results_url : null;
    const res = await anthropicBatches.results(up.credential, b.upstreamId ?? '', url);
    if (res.status !== 200) throw new UpstreamAnswer(res.status, await res.body.text());
    return res.body;
  }
}
