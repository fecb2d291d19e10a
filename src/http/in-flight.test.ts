import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import type { CallSignal } from '../ir/call-signal.ts';
import { InFlight } from './proxy-routes.ts';

/** What InFlight reads of a response: its 'close' event and whether the answer was written whole. */
class FakeResponse extends EventEmitter {
  writableFinished = false;
  finish(): void {
    this.writableFinished = true;
    this.emit('close');
  }
  hangUp(): void {
    this.emit('close');
  }
}
const track = (f: InFlight, r: FakeResponse): CallSignal => f.track(r as unknown as ServerResponse);

test('a call is in flight until its response closes; a finished slot is reused', () => {
  const f = new InFlight();
  const [a, b, c] = [new FakeResponse(), new FakeResponse(), new FakeResponse()];
  const sa = track(f, a);
  const sb = track(f, b);
  assert.equal(f.size, 2);
  a.finish();
  assert.equal(f.size, 1);
  assert.equal(sa.aborted, false, 'an answered call is not aborted');
  a.emit('close');
  assert.equal(f.size, 1, 'a second close changes nothing');
  const sc = track(f, c);
  assert.equal(f.size, 2);
  b.hangUp();
  assert.equal(sb.aborted, true, 'a caller who left mid-answer aborts the call');
  assert.match(String((sb.reason as Error).message), /client disconnected/);
  assert.equal(sc.aborted, false);
  assert.equal(f.size, 1);
});

test('abortAll aborts the calls in flight only', () => {
  const f = new InFlight();
  const rs = Array.from({ length: 5 }, () => new FakeResponse());
  const signals = rs.map((r) => track(f, r));
  rs[1].finish();
  rs[3].finish();
  f.abortAll();
  assert.deepEqual(
    signals.map((s) => s.aborted),
    [true, false, true, false, true],
  );
  assert.equal(f.size, 3, 'aborting does not end a call: its response closing does');
});

test('a response tracked twice is one call with one signal', () => {
  const f = new InFlight();
  const r = new FakeResponse();
  const first = track(f, r);
  assert.equal(track(f, r), first);
  assert.equal(f.size, 1);
  r.hangUp();
  assert.equal(first.aborted, true);
  assert.equal(f.size, 0);
});
