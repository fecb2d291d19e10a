// JSONL both ways: lines read from a file or an upstream body as they stream in, and result lines
// written from a batch's items in index order, a page at a time.
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { JsonObject } from '../ir/types.ts';
import type { BatchStore, ItemRecord } from '../store/batches.ts';
import { isRecord } from '../util/json.ts';

/** Items read per page while writing results. */
const PAGE = 500;

/** The lines of a stream of bytes (any line ending), without holding more than a line at once. */
export function readLines(content: AsyncIterable<Uint8Array>): AsyncIterable<string> {
  return createInterface({ input: Readable.from(content), crlfDelay: Number.POSITIVE_INFINITY });
}

/** The JSON objects of a JSONL stream; blank and unparsable lines are skipped. */
export async function* jsonObjects(content: AsyncIterable<Uint8Array>): AsyncGenerator<JsonObject> {
  for await (const line of readLines(content)) {
    if (line.trim() === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    if (isRecord(v)) yield v as JsonObject;
  }
}

/** JSONL text of a batch's items in index order, one chunk per page; `lineOf` may skip an item. */
export async function* itemLines(
  batches: BatchStore,
  batchId: string,
  lineOf: (item: ItemRecord) => JsonObject | undefined,
): AsyncGenerator<string> {
  let after = -1;
  for (;;) {
    const page = await batches.items(batchId, after, PAGE);
    if (page.length === 0) return;
    let text = '';
    for (const item of page) {
      const line = lineOf(item);
      if (line !== undefined) text += `${JSON.stringify(line)}\n`;
    }
    if (text !== '') yield text;
    after = page[page.length - 1].idx;
  }
}
