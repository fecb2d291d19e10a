import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CallAbort } from './call-abort.ts';

test('a CallAbort runs its listeners once, in order, and keeps the reason', () => {
  const cell = new CallAbort();
  const seen: string[] = [];
  const removed = (): void => {
    seen.push('removed');
  };
  cell.addEventListener('abort', () => seen.push('a'));
  cell.addEventListener('abort', removed);
  cell.addEventListener('abort', () => seen.push('b'));
  cell.removeEventListener('abort', removed);
  assert.equal(cell.aborted, false);
  const reason = new Error('client disconnected');
  cell.abort(reason);
  cell.abort(new Error('second'));
  assert.deepEqual(seen, ['a', 'b']);
  assert.equal(cell.aborted, true);
  assert.equal(cell.reason, reason);
  cell.addEventListener('abort', () => seen.push('late'));
  assert.deepEqual(seen, ['a', 'b'], 'a listener added after the abort never runs, as with AbortSignal');
});

test('a CallAbort aborted without a reason gives an AbortError, as AbortController does', () => {
  const cell = new CallAbort();
  cell.abort();
  assert.ok(cell.reason instanceof DOMException);
  assert.equal((cell.reason as DOMException).name, 'AbortError');
});

test('a throwing listener does not stop the others', async () => {
  const cell = new CallAbort();
  const seen: string[] = [];
  cell.addEventListener('abort', () => {
    throw new Error('boom');
  });
  cell.addEventListener('abort', () => seen.push('after'));
  // Captured here instead of reaching the test runner as a failure of this test.
  const uncaught = new Promise<unknown>((resolve) =>
    process.setUncaughtExceptionCaptureCallback((err) => {
      process.setUncaughtExceptionCaptureCallback(null);
      resolve(err);
    }),
  );
  cell.abort();
  assert.deepEqual(seen, ['after']);
  assert.equal(((await uncaught) as Error).message, 'boom');
});
