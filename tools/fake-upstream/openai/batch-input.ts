// Validation of a batch input JSONL file (the `validating` phase).

import { normaliseEndpoint } from './batch-exec.ts';
import { isRecord, type Json, str } from './util.ts';

export interface BatchLine {
  customId: string;
  body: Json;
}

export interface BatchLineError {
  code: string;
  message: string;
  param: string | null;
  line: number;
}

export function parseBatchInput(data: Buffer, endpoint: string): { lines: BatchLine[]; errors: BatchLineError[] } {
  const lines: BatchLine[] = [];
  const errors: BatchLineError[] = [];
  const seen = new Set<string>();
  const rows = data.toString('utf8').split('\n');
  rows.forEach((row, i) => {
    const line = i + 1;
    if (row.trim() === '') return;
    let v: unknown;
    try {
      v = JSON.parse(row);
    } catch {
      errors.push({
        code: 'invalid_json_line',
        message: 'This line is not parseable as valid JSON.',
        param: null,
        line,
      });
      return;
    }
    if (!isRecord(v)) {
      errors.push({ code: 'invalid_request', message: 'Each line must be a JSON object.', param: null, line });
      return;
    }
    const customId = str(v.custom_id);
    if (customId === undefined) {
      errors.push({
        code: 'missing_required_parameter',
        message: "Missing required parameter: 'custom_id'.",
        param: 'custom_id',
        line,
      });
      return;
    }
    if (seen.has(customId)) {
      errors.push({
        code: 'duplicate_custom_id',
        message: `The custom_id '${customId}' is used more than once.`,
        param: 'custom_id',
        line,
      });
      return;
    }
    seen.add(customId);
    if (v.method !== 'POST') {
      errors.push({
        code: 'invalid_method',
        message: "Only 'POST' is supported as the method.",
        param: 'method',
        line,
      });
      return;
    }
    const url = str(v.url);
    if (url === undefined || normaliseEndpoint(url) !== endpoint) {
      errors.push({
        code: 'mismatched_url',
        message: `The url '${String(v.url)}' does not match the batch endpoint '${endpoint}'.`,
        param: 'url',
        line,
      });
      return;
    }
    if (!isRecord(v.body)) {
      errors.push({
        code: 'missing_required_parameter',
        message: "Missing required parameter: 'body'.",
        param: 'body',
        line,
      });
      return;
    }
    lines.push({ customId, body: v.body });
  });
  if (lines.length === 0 && errors.length === 0)
    errors.push({ code: 'empty_file', message: 'The input file contains no requests.', param: null, line: 0 });
  return { lines, errors };
}
