// Clock-driven batch lifecycle: validating -> in_progress -> finalizing -> completed (or failed / cancelling -> cancelled).
// State advances lazily whenever a batch is read, so no timers outlive a test.
import type { FakeState } from '../context.ts';
import { executeLine } from './batch-exec.ts';
import { type BatchLine, parseBatchInput } from './batch-input.ts';
import type { OaiVendor } from './env.ts';
import { addFile, getFileData } from './files.ts';
import { type Json, newId } from './util.ts';

export interface StoredBatch {
  obj: Json;
  endpoint: string;
  /** When the current phase began (ms); phases last `batchStepMs`. */
  phaseMs: number;
  lines: BatchLine[];
  results: string[];
  errors: string[];
}

export function batchStore(state: FakeState, vendor: OaiVendor): Map<string, StoredBatch> {
  return state.store(`oai-batches:${vendor}`, () => new Map<string, StoredBatch>());
}

const sec = (ms: number) => Math.floor(ms / 1000);

export function advanceBatch(b: StoredBatch, state: FakeState, vendor: OaiVendor, now = Date.now()): void {
  const step = state.opts.batchStepMs;
  for (;;) {
    const due = b.phaseMs + step;
    if (now < due) return;
    const status = b.obj.status;
    if (status === 'validating') validate(b, state, vendor, due);
    else if (status === 'in_progress') run(b, vendor, due);
    else if (status === 'finalizing') finish(b, state, vendor, due);
    else if (status === 'cancelling') {
      b.obj.status = 'cancelled';
      b.obj.cancelled_at = sec(due);
    } else return;
    b.phaseMs = due;
  }
}

function validate(b: StoredBatch, state: FakeState, vendor: OaiVendor, at: number): void {
  const file = getFileData(state, vendor, String(b.obj.input_file_id));
  const parsed = file
    ? parseBatchInput(file.data, b.endpoint)
    : { lines: [], errors: [{ code: 'file_not_found', message: 'The input file was deleted.', param: null, line: 0 }] };
  if (parsed.errors.length > 0) {
    b.obj.status = 'failed';
    b.obj.failed_at = sec(at);
    b.obj.errors = { object: 'list', data: parsed.errors };
    return;
  }
  b.lines = parsed.lines;
  b.obj.status = 'in_progress';
  b.obj.in_progress_at = sec(at);
  b.obj.request_counts = { total: parsed.lines.length, completed: 0, failed: 0 };
  const first = parsed.lines[0]?.body.model;
  if (typeof first === 'string') b.obj.model = first;
}

function run(b: StoredBatch, vendor: OaiVendor, at: number): void {
  let completed = 0;
  let failed = 0;
  let input = 0;
  let output = 0;
  for (const line of b.lines) {
    const r = executeLine(b.endpoint, line.body, vendor);
    const record = {
      id: newId('batch_req_'),
      custom_id: line.customId,
      response: { status_code: r.status, request_id: newId('req_'), body: r.body },
      error: null,
    };
    if (r.status === 200) {
      completed++;
      b.results.push(JSON.stringify(record));
    } else {
      failed++;
      b.errors.push(JSON.stringify(record));
    }
    input += r.inputTokens;
    output += r.outputTokens;
  }
  b.obj.request_counts = { total: b.lines.length, completed, failed };
  b.obj.usage = {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
  b.obj.status = 'finalizing';
  b.obj.finalizing_at = sec(at);
}

function finish(b: StoredBatch, state: FakeState, vendor: OaiVendor, at: number): void {
  const id = String(b.obj.id);
  if (b.results.length > 0)
    b.obj.output_file_id = addFile(
      state,
      vendor,
      `${id}_output.jsonl`,
      'batch_output',
      Buffer.from(`${b.results.join('\n')}\n`),
    ).id;
  if (b.errors.length > 0)
    b.obj.error_file_id = addFile(
      state,
      vendor,
      `${id}_error.jsonl`,
      'batch_output',
      Buffer.from(`${b.errors.join('\n')}\n`),
    ).id;
  b.obj.status = 'completed';
  b.obj.completed_at = sec(at);
}
