// `switchyard batch run`: the input file turned into the JSONL the gateway's batch API takes, and the
// batch's output and error files merged back into one results file in the input's order. Pure: no
// network, no file system, so the rules are unit-tested on their own.

/** The endpoints a batch may target; a batch has one, so every line must use the same. */
export const BATCH_URLS: readonly string[] = ['/v1/chat/completions', '/v1/embeddings'];
const DEFAULT_URL = '/v1/chat/completions';

export interface PreparedBatch {
  /** The one url every line uses: the batch's endpoint. */
  endpoint: string;
  /** Each request's custom_id, in input order (the results file's order). */
  customIds: string[];
  /** What is uploaded: one `{custom_id, method, url, body}` line per request. */
  jsonl: string;
}

export interface InputProblem {
  /** 1-based line number in the input file (0 when the problem is the whole file). */
  line: number;
  message: string;
}

export type PrepareResult = { ok: true; batch: PreparedBatch } | { ok: false; problems: InputProblem[] };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads each non-blank line as either a full batch line (it has a `body` object; `custom_id`,
 * `method` and `url` default to `line-<n>`, POST and /v1/chat/completions) or a bare request body
 * (`{model?, messages, ...}`: custom_id `line-<n>`, url /v1/chat/completions). `model` replaces
 * `body.model` on every line. Any problem (not JSON, not an object, a repeated custom_id, a second
 * url) is reported with its line number and nothing is prepared.
 */
export function prepareBatchInput(text: string, opts: { model?: string } = {}): PrepareResult {
  const problems: InputProblem[] = [];
  const out: string[] = [];
  const customIds: string[] = [];
  const seen = new Map<string, number>();
  let endpoint: { url: string; line: number } | undefined;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = lines[i] ?? '';
    if (raw.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      problems.push({ line: n, message: `not valid JSON (${err instanceof Error ? err.message : String(err)})` });
      continue;
    }
    if (!isObject(parsed)) {
      problems.push({ line: n, message: 'expected a JSON object' });
      continue;
    }
    const full = 'body' in parsed;
    if (full && !isObject(parsed.body)) {
      problems.push({ line: n, message: 'body must be a JSON object' });
      continue;
    }
    const body: Json = full ? { ...(parsed.body as Json) } : { ...parsed };
    const customId = full && parsed.custom_id !== undefined ? parsed.custom_id : `line-${n}`;
    if (typeof customId !== 'string' || customId === '') {
      problems.push({ line: n, message: 'custom_id must be a non-empty string' });
      continue;
    }
    const url = full && parsed.url !== undefined ? parsed.url : DEFAULT_URL;
    if (typeof url !== 'string' || !BATCH_URLS.includes(url)) {
      problems.push({ line: n, message: `url must be one of ${BATCH_URLS.join(', ')}, got ${JSON.stringify(url)}` });
      continue;
    }
    const method = full && parsed.method !== undefined ? parsed.method : 'POST';
    const earlier = seen.get(customId);
    if (earlier !== undefined) {
      problems.push({ line: n, message: `custom_id "${customId}" is already used on line ${earlier}` });
      continue;
    }
    seen.set(customId, n);
    if (endpoint === undefined) endpoint = { url, line: n };
    else if (url !== endpoint.url) {
      problems.push({
        line: n,
        message: `url ${url} differs from ${endpoint.url} (line ${endpoint.line}): a batch has one endpoint`,
      });
      continue;
    }
    if (opts.model !== undefined) body.model = opts.model;
    customIds.push(customId);
    out.push(JSON.stringify({ custom_id: customId, method, url, body }));
  }
  if (problems.length === 0 && out.length === 0) problems.push({ line: 0, message: 'the input holds no requests' });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, batch: { endpoint: endpoint?.url ?? DEFAULT_URL, customIds, jsonl: `${out.join('\n')}\n` } };
}

/** The error a request gets in the results when the batch ended without a line for it. */
function missingLine(customId: string, batchStatus: string): string {
  const error =
    batchStatus === 'cancelled'
      ? { code: 'batch_cancelled', message: 'The batch was cancelled before this request ran.' }
      : batchStatus === 'expired'
        ? { code: 'batch_expired', message: 'The batch expired before this request ran.' }
        : { code: 'missing_result', message: `The batch ended ${batchStatus} without a result for this request.` };
  return JSON.stringify({ id: null, custom_id: customId, response: null, error });
}

export interface MergedResults {
  /** One line per input request, in input order, each ending in a newline. */
  text: string;
  /** Requests the gateway returned no line for (written with a synthesized error). */
  missing: number;
  /** Lines whose custom_id is not one of the input's (left out). */
  unknown: number;
}

/**
 * The output file's and the error file's lines, merged into the input's order by custom_id. A
 * request found in both keeps its output line; one found in neither gets an error line saying why
 * (cancelled, expired, or missing), so the results always hold exactly one line per request.
 */
export function mergeResults(
  customIds: readonly string[],
  outputText: string,
  errorText: string,
  batchStatus: string,
): MergedResults {
  const wanted = new Set(customIds);
  const byId = new Map<string, string>();
  let unknown = 0;
  // The error file first, so that an output line for the same request wins.
  for (const text of [errorText, outputText]) {
    for (const raw of text.split(/\r?\n/)) {
      if (raw.trim() === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        unknown++;
        continue;
      }
      const id = isObject(parsed) ? parsed.custom_id : undefined;
      if (typeof id !== 'string' || !wanted.has(id)) {
        unknown++;
        continue;
      }
      byId.set(id, raw.trim());
    }
  }
  let missing = 0;
  const lines = customIds.map((id) => {
    const found = byId.get(id);
    if (found !== undefined) return found;
    missing++;
    return missingLine(id, batchStatus);
  });
  return { text: lines.length === 0 ? '' : `${lines.join('\n')}\n`, missing, unknown };
}
