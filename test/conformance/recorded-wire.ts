// Real vendor answers as an upstream. The recordings are other projects' test data and stay in
// ../shared/recorded-wire/ (never copied here): they are read at test time, and where that folder is
// absent the tests skip with recordedWireMissing()'s message. The server hands out whichever
// recording the test chose, byte for byte, in pieces of a few bytes with a turn of the event loop
// between them, so SSE records, CRLF pairs, UTF-8 sequences and binary eventstream frames all cross
// read boundaries the way a slow network splits them.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export const RECORDED_DIR = fileURLToPath(new URL('../../../shared/recorded-wire/', import.meta.url));

/** Why the recorded-wire tests cannot run here, or null when they can. */
export function recordedWireMissing(): string | null {
  if (existsSync(`${RECORDED_DIR}SOURCES.tsv`)) return null;
  return `recorded vendor answers not found at ${RECORDED_DIR} (../shared beside the checkout): skipped`;
}

export type RecordedVendor = 'anthropic' | 'openai' | 'google' | 'bedrock';

export interface Recording {
  vendor: RecordedVendor;
  /** Path under recorded-wire/, e.g. `anthropic/thinking-text.sse`. */
  file: string;
  stream: boolean;
  contentType: string;
  /** The bytes a vendor sends for it. */
  bytes: Buffer;
}

/**
 * vercel/ai keeps only the data payloads of an Anthropic stream, one JSON a line: each is framed
 * back into the record Anthropic sends (see the recordings' README).
 */
function framedChunks(text: string): Buffer {
  const records = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`);
  return Buffer.from(records.join(''), 'utf8');
}

export function loadRecording(file: string): Recording {
  const raw = readFileSync(`${RECORDED_DIR}${file}`);
  const vendor = file.split('/')[0] as RecordedVendor;
  if (file.endsWith('.chunks.txt'))
    return { vendor, file, stream: true, contentType: 'text/event-stream', bytes: framedChunks(raw.toString('utf8')) };
  if (file.endsWith('.eventstream'))
    return { vendor, file, stream: true, contentType: 'application/vnd.amazon.eventstream', bytes: raw };
  if (file.endsWith('.sse')) return { vendor, file, stream: true, contentType: 'text/event-stream', bytes: raw };
  return { vendor, file, stream: false, contentType: 'application/json', bytes: raw };
}

export const PIECE_BYTES = 7;

export interface RecordedUpstream {
  url: string;
  /** The recording the next calls get. */
  serve(rec: Recording): void;
  /** `METHOD path?query` of every call received, oldest first. */
  calls(): string[];
  close(): Promise<void>;
}

async function drain(req: IncomingMessage): Promise<void> {
  for await (const _ of req) {
    // The request body is not looked at: whatever was asked, the recording is the answer.
  }
}

export async function startRecordedUpstream(pieceBytes = PIECE_BYTES): Promise<RecordedUpstream> {
  let current: Recording | null = null;
  const seen: string[] = [];
  const server: Server = createServer(async (req, res) => {
    await drain(req);
    seen.push(`${req.method} ${req.url}`);
    const rec = current;
    if (!rec) {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"no recording chosen"}');
      return;
    }
    // Nagle would merge the pieces back into one segment.
    res.socket?.setNoDelay(true);
    res.writeHead(200, { 'content-type': rec.contentType });
    for (let at = 0; at < rec.bytes.length; at += pieceBytes) {
      if (res.destroyed) return;
      res.write(rec.bytes.subarray(at, at + pieceBytes));
      await new Promise((r) => setImmediate(r));
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    serve(rec) {
      current = rec;
    },
    calls: () => [...seen],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
