// JSONL both ways: lines read from a file or an upstream body as they stream in, and result lines
// written from a batch's items in index order, a page at a time.
import type { JsonObject } from '../ir/types.ts';
import type { BatchStore, ItemRecord } from '../store/batches.ts';
import { isRecord, parseBoundedJson } from '../util/json.ts';

/** Items read per page while writing results. */
const PAGE = 500;
const LF = 10;
const CR = 13;

/** One line of a JSONL stream: its text, or only its size when it is longer than allowed. */
export type Line = { text: string } | { text: undefined; bytes: number };

/**
 * The lines of a stream of bytes (LF, CRLF or CR endings). A line longer than `maxBytes` is not
 * kept: its bytes are counted and dropped as they stream by, so one endless line holds no memory.
 */
export async function* readLines(
  content: AsyncIterable<Uint8Array>,
  maxBytes = Number.POSITIVE_INFINITY,
): AsyncGenerator<Line> {
  let parts: Uint8Array[] = [];
  let size = 0;
  let afterCr = false;
  let seen = false;
  const take = (): Line => {
    const line: Line =
      size > maxBytes ? { text: undefined, bytes: size } : { text: Buffer.concat(parts).toString('utf8') };
    parts = [];
    size = 0;
    seen = false;
    return line;
  };
  for await (const chunk of content) {
    let start = 0;
    // The LF of a CRLF (perhaps in the next chunk) ends no second line.
    if (afterCr && chunk[0] === LF) start = 1;
    afterCr = false;
    for (;;) {
      const end = nextBreak(chunk, start);
      if (end === -1) break;
      add(chunk.subarray(start, end));
      yield take();
      start = end + 1;
      if (chunk[end] === CR) {
        if (start === chunk.length) afterCr = true;
        else if (chunk[start] === LF) start++;
      }
    }
    if (start < chunk.length) add(chunk.subarray(start));
  }
  if (seen) yield take();

  function add(bytes: Uint8Array): void {
    seen = true;
    size += bytes.length;
    if (size <= maxBytes) parts.push(bytes);
    else parts = [];
  }
}

/** Where the next LF or CR is in `chunk` from `from`, or -1. */
function nextBreak(chunk: Uint8Array, from: number): number {
  const lf = chunk.indexOf(LF, from);
  // Most files end lines with LF alone: look for a CR only before the LF.
  const cr = chunk.subarray(from, lf === -1 ? chunk.length : lf).indexOf(CR);
  return cr === -1 ? lf : from + cr;
}

/** The JSON objects of a JSONL stream; blank, unparsable, too long and too deep lines are skipped. */
export async function* jsonObjects(content: AsyncIterable<Uint8Array>, maxBytes?: number): AsyncGenerator<JsonObject> {
  for await (const line of readLines(content, maxBytes)) {
    if (line.text === undefined || line.text.trim() === '') continue;
    const parsed = parseBoundedJson(line.text);
    if (parsed.ok && isRecord(parsed.value)) yield parsed.value as JsonObject;
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
