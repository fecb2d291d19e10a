// The addon against glibc itself: it must load where CI builds it, and release() must give freed
// C-heap memory back, which nothing else in the process would do.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { tuneMalloc } from './malloc.ts';

function onGlibc(): boolean {
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  return process.platform === 'linux' && typeof report.header?.glibcVersionRuntime === 'string';
}

function residentMb(): number {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
}

const glibc = onGlibc();

test('the addon loads and takes the settings on glibc (npm ci builds it there)', () => {
  assert.equal(tuneMalloc().native, glibc);
});

test('release() hands the C heap freed by the garbage collector back to the kernel', { skip: !glibc }, async () => {
  const tuning = tuneMalloc();
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // 48 MB of 16 KB backing stores: under the mmap threshold, so they come from a malloc arena. Every
  // eighth stays alive, so the freed memory sits between live blocks, where free() alone keeps it.
  const blocks: Buffer[] = [];
  for (let i = 0; i < 3072; i++) blocks.push(Buffer.allocUnsafeSlow(16 * 1024).fill(i & 0xff));
  const kept = blocks.filter((_, i) => i % 8 === 7);
  blocks.length = 0;
  const before = residentMb();
  for (let i = 0; i < 3; i++) {
    gc();
    // V8 frees array buffers' memory on a helper thread after the collection.
    await new Promise((r) => setTimeout(r, 100));
  }
  const freedOnly = residentMb();
  tuning.release();
  const released = residentMb();
  assert.equal(kept.length, 384);
  // 42 MB became free; free() returned little of it, release() most.
  assert.ok(before - freedOnly < 20, `free() alone gave back ${(before - freedOnly).toFixed(1)} MB`);
  assert.ok(freedOnly - released > 25, `release() gave back ${(freedOnly - released).toFixed(1)} MB`);
});
