import assert from 'node:assert/strict';
import test from 'node:test';
import { Utf8Stream } from './utf8-stream.ts';

function viaTextDecoder(chunks: Uint8Array[]): string {
  const d = new TextDecoder();
  let out = '';
  for (const c of chunks) out += d.decode(c, { stream: true });
  return out + d.decode();
}

function viaUtf8Stream(chunks: Uint8Array[]): string {
  const d = new Utf8Stream();
  let out = '';
  for (const c of chunks) out += d.write(c);
  return out + d.end();
}

function cut(bytes: Uint8Array, every: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const n = every[i % every.length];
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

test('Utf8Stream decodes like a streaming TextDecoder, whatever the chunk boundaries', () => {
  const text = 'data: {"delta":"héllo wörld — 你好 🌍 done"}\n\n';
  const cases = [
    Buffer.from(text),
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
    // Malformed: a lone continuation byte, a truncated 3-byte sequence, an overlong encoding.
    Buffer.concat([
      Buffer.from('a'),
      Buffer.from([0x80]),
      Buffer.from('b'),
      Buffer.from([0xe4, 0xbd]),
      Buffer.from('c'),
    ]),
    Buffer.from([0xc0, 0xaf, 0x41]),
    // Ends mid-character.
    Buffer.concat([Buffer.from(text), Buffer.from([0xf0, 0x9f])]),
    // A byte order mark that is not leading stays.
    Buffer.from(`x\uFEFFy`),
  ];
  for (const bytes of cases)
    for (const every of [[1], [2], [3], [5, 1], [7, 2, 1], [bytes.length]]) {
      const chunks = cut(bytes, every);
      assert.equal(viaUtf8Stream(chunks), viaTextDecoder(chunks), `${bytes.toString('hex')} cut ${every}`);
    }
});

test('a byte order mark split across the first chunks is still dropped', () => {
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('data: x\n\n')]);
  const chunks = [bytes.subarray(0, 1), bytes.subarray(1, 2), bytes.subarray(2)];
  assert.equal(viaUtf8Stream(chunks), 'data: x\n\n');
});
