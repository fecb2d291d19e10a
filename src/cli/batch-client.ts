// `switchyard batch run`: the few calls it makes to a running gateway's family-alpha Files and
// Batches API, over Node's fetch. A 4xx/5xx becomes a GatewayCallError carrying the gateway's own
// message; a gateway that cannot be reached becomes one with status 0.

/** The part of the alpha batch object the command reads. */
export interface BatchObject {
  id: string;
  status: string;
  output_file_id?: string | null;
  error_file_id?: string | null;
  request_counts?: { total?: number; completed?: number; failed?: number } | null;
  errors?: { data?: Array<{ code?: string; message?: string; line?: number | null }> } | null;
  [key: string]: unknown;
}

export class GatewayCallError extends Error {
  /** The HTTP status, or 0 when no answer came. */
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** How long one call may take before it is given up. */
const CALL_TIMEOUT_MS = 60_000;

function errorMessage(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof message === 'string' && message !== '') return `${message} (HTTP ${status})`;
  } catch {}
  const snippet = text.trim().slice(0, 300);
  return snippet === '' ? `HTTP ${status}` : `HTTP ${status}: ${snippet}`;
}

export class GatewayClient {
  readonly #base: string;
  readonly #apiKey: string;

  constructor(baseUrl: string, apiKey: string) {
    this.#base = baseUrl.replace(/\/+$/, '');
    this.#apiKey = apiKey;
  }

  async #call(
    method: string,
    path: string,
    init: { body?: FormData | string; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${this.#base}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.#apiKey}`, ...init.headers },
        body: init.body,
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : undefined;
      const why = cause ?? (err instanceof Error ? err.message : String(err));
      throw new GatewayCallError(0, `cannot reach the gateway at ${this.#base}: ${why}`);
    }
    if (res.status >= 400) throw new GatewayCallError(res.status, errorMessage(res.status, await res.text()));
    return res;
  }

  async #json<T>(method: string, path: string, init?: { body?: FormData | string; headers?: Record<string, string> }) {
    const res = await this.#call(method, path, init);
    const text = await res.text();
    try {
      return { json: JSON.parse(text) as T, headers: res.headers };
    } catch {
      throw new GatewayCallError(res.status, `the gateway answered ${method} ${path} with something not JSON`);
    }
  }

  /** Uploads JSONL as a gateway-held file (X-Svc-Provider: switchyard) with purpose batch. */
  async uploadBatchFile(jsonl: string, filename: string): Promise<{ id: string }> {
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([jsonl], { type: 'application/jsonl' }), filename);
    const { json } = await this.#json<{ id?: unknown }>('POST', '/alpha/v1/files', {
      body: form,
      headers: { 'x-svc-provider': 'switchyard' },
    });
    if (typeof json.id !== 'string')
      throw new GatewayCallError(200, 'the gateway answered the upload without a file id');
    return { id: json.id };
  }

  /** Creates the batch; `concurrency` goes as X-Svc-Batch-Concurrency (a gateway may ignore it). */
  async createBatch(inputFileId: string, endpoint: string, concurrency?: number): Promise<BatchObject> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (concurrency !== undefined) headers['x-svc-batch-concurrency'] = String(concurrency);
    const body = JSON.stringify({ input_file_id: inputFileId, endpoint, completion_window: '24h' });
    return (await this.#json<BatchObject>('POST', '/alpha/v1/batches', { body, headers })).json;
  }

  /** The batch, and the answer's headers (a gateway may tell the cost there). */
  async getBatch(id: string): Promise<{ batch: BatchObject; headers: Headers }> {
    const { json, headers } = await this.#json<BatchObject>('GET', `/alpha/v1/batches/${encodeURIComponent(id)}`);
    return { batch: json, headers };
  }

  async cancelBatch(id: string): Promise<BatchObject> {
    return (await this.#json<BatchObject>('POST', `/alpha/v1/batches/${encodeURIComponent(id)}/cancel`)).json;
  }

  async fileContent(id: string): Promise<string> {
    const res = await this.#call('GET', `/alpha/v1/files/${encodeURIComponent(id)}/content`);
    return res.text();
  }
}

/** What the batch cost, when the gateway tells it: on the object (`cost_usd`, `usage.cost_usd`) or in X-Svc-Cost-Usd. */
export function costOf(batch: BatchObject, headers: Headers | undefined): number | null {
  const usage = batch.usage as { cost_usd?: unknown } | null | undefined;
  for (const v of [batch.cost_usd, usage?.cost_usd, headers?.get('x-svc-cost-usd') ?? undefined]) {
    if (v === undefined || v === null || v === '') continue;
    const n = Number(v);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  return null;
}
