// An upload's memory cost (SPEC "Family alpha batches and files": buffered once before forwarding).
// The gateway runs in its own process so that its resident memory is its own: a 100 MB file sent on to
// the upstream raises it by about one file size (the chunks as they arrived, never joined into a
// second copy), and a 100 MB file the gateway keeps itself goes to disk without being held at all.
// Linux only: the figures come from /proc (VmRSS, and VmHWM, the peak, reset through clear_refs).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { type GatewayProcess, spawnGateway } from '../helpers/gateway-process.ts';

const MB = 1024 * 1024;
const FILE_BYTES = 100 * MB;
const linux = process.platform === 'linux';

let fake: FakeUpstream;
let gw: GatewayProcess;

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(m, `no ${field} for ${pid}`);
  return Number(m[1]) * 1024;
}

/**
 * The process's peak resident memory during `run`, above its resident memory just before: the peak
 * counter is reset first; where that is not allowed, resident memory is sampled every 5 ms instead.
 */
async function peakRise(pid: number, run: () => Promise<void>): Promise<number> {
  const base = statusKb(pid, 'VmRSS');
  let resettable = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    resettable = false;
  }
  let sampled = base;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, statusKb(pid, 'VmRSS'));
  }, 5);
  try {
    await run();
  } finally {
    clearInterval(sampler);
  }
  const peak = resettable ? Math.max(statusKb(pid, 'VmHWM'), sampled) : sampled;
  return peak - base;
}

/** A multipart upload of `bytes` generated on the fly (the client side holds 1 MiB), with its exact length. */
async function upload(bytes: number, filename: string, headers: Record<string, string> = {}) {
  const boundary = 'memtestboundary7MA4YWxkTrZu0gW';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
      'Content-Type: application/jsonl\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const line = Buffer.from(`${JSON.stringify({ custom_id: 'x', method: 'POST', url: '/v1/chat/completions' })}\n`);
  const piece = Buffer.alloc(MB);
  for (let at = 0; at < MB; at += line.length) line.copy(piece, at);
  async function* body(): AsyncGenerator<Buffer> {
    yield head;
    for (let sent = 0; sent < bytes; sent += MB) yield piece.subarray(0, Math.min(MB, bytes - sent));
    yield tail;
  }
  const res = await request(`${gw.url}/alpha/v1/files`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${gw.key}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + bytes + tail.length),
      ...headers,
    },
    body: Readable.from(body(), { objectMode: false }),
  });
  const text = await res.body.text();
  assert.equal(res.statusCode, 200, text);
  return JSON.parse(text) as { id: string; bytes: number };
}

/** A fresh gateway process per measurement: memory one upload freed would hide what the next one takes. */
async function freshGateway(): Promise<void> {
  await gw?.stop();
  gw = await spawnGateway();
  assert.equal(await gw.addOpenAi(fake.url), 201);
  // Loads the upload path (multipart reader, stores, upstream client) before anything is measured.
  await upload(64 * 1024, 'warm.jsonl');
  await upload(64 * 1024, 'warm.jsonl', { 'x-svc-provider': 'switchyard' });
}

describe('upload memory', { skip: linux ? undefined : 'reads /proc' }, () => {
  before(async () => {
    fake = await startFakeUpstream({ port: 0 });
  });
  after(async () => {
    await gw?.stop();
    await fake?.close();
  });

  test('100 MB forwarded to the upstream: memory rises by about one file size, not several', async (t) => {
    await freshGateway();
    let file: { id: string; bytes: number } | undefined;
    const rise = await peakRise(gw.child.pid as number, async () => {
      file = await upload(FILE_BYTES, 'big.jsonl');
    });
    t.diagnostic(`forwarded: resident memory rose ${(rise / MB).toFixed(1)} MB for a ${FILE_BYTES / MB} MB file`);
    assert.equal(file?.bytes, FILE_BYTES, 'the upstream got every byte');
    assert.doesNotMatch(file?.id ?? '', /^file-sy/);
    assert.ok(rise > 0.5 * FILE_BYTES, `held once: rose only ${(rise / MB).toFixed(1)} MB`);
    assert.ok(rise < 1.5 * FILE_BYTES, `rose ${(rise / MB).toFixed(1)} MB: more than one copy`);
  });

  test('200 MB held by the gateway streams to disk: memory does not grow with the file', async (t) => {
    await freshGateway();
    // Twice the size: chunks already on disk are garbage until the next collection, which V8 starts
    // once some tens of MB of them are outstanding; what must not happen is the file being held whole.
    const size = 2 * FILE_BYTES;
    let file: { id: string; bytes: number } | undefined;
    const rise = await peakRise(gw.child.pid as number, async () => {
      file = await upload(size, 'held.jsonl', { 'x-svc-provider': 'switchyard' });
    });
    t.diagnostic(`gateway-held: resident memory rose ${(rise / MB).toFixed(1)} MB for a ${size / MB} MB file`);
    assert.equal(file?.bytes, size);
    assert.match(file?.id ?? '', /^file-sy/);
    assert.ok(rise < 0.5 * size, `rose ${(rise / MB).toFixed(1)} MB`);
  });
});
