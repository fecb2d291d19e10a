// Spans written in place into the batch they are sent in (queue.ts, spans.ts, exporter.ts), decoded
// with the official definitions: sizes on either side of the two bytes kept for a span's length, a
// span whose writing threw, a full queue, the buffer of a failed export left as it was sent, and span
// names written without joining their parts.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { traceEnvelope } from '../../src/telemetry/exporter.ts';
import { ProtoWriter } from '../../src/telemetry/proto-writer.ts';
import { type BatchExporter, MAX_BATCH, MAX_QUEUE, type SpanBatch, SpanQueue } from '../../src/telemetry/queue.ts';
import { KIND_SERVER, openChild, openRoot, parseTraceparent, SpanWriter } from '../../src/telemetry/spans.ts';
import { decodeTraces } from './otlp-receiver.ts';

const CALLER = parseTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'k=v');
const envelope = traceEnvelope({ 'service.name': 'switchyard' }, { name: 'switchyard', version: '1' });

/** An exporter that keeps each request's bytes and answers with `ok` (synchronously unless held). */
function recorder(ok: () => boolean, hold = false) {
  const sent: Uint8Array[] = [];
  const pending: Array<() => void> = [];
  const dropped: Record<string, number> = {};
  const exporter: BatchExporter = {
    room: envelope.room,
    export(batch: SpanBatch, done) {
      sent.push(envelope.wrap(batch));
      const result = ok();
      if (hold) pending.push(() => done(result));
      else done(result);
    },
    shutdown: async () => {},
  };
  const deps = { onDropped: (n: number, why: string) => (dropped[why] = (dropped[why] ?? 0) + n), onError() {} };
  const queue = new SpanQueue(exporter, deps);
  return { queue, writer: new SpanWriter(queue), sent, pending, dropped };
}

it('writes spans of any size in place, with ids, names, times and attributes as given', async () => {
  const { queue, writer, sent } = recorder(() => true);
  const root = openRoot(undefined, true, performance.now());
  const server = openRoot(CALLER, true, performance.now());
  const attempt = openChild(server, performance.now());
  // A span under 128 bytes, one between, one past 16383: two bytes are kept for each one's length.
  writer.open(root, 'small', undefined, KIND_SERVER, 5);
  writer.close(root, undefined, undefined, undefined);
  writer.open(attempt, 'chat', 'gpt-ü', KIND_SERVER, 5);
  writer.set('big', 'x'.repeat(100));
  writer.close(attempt, undefined, undefined, undefined);
  writer.open(server, 'chat', 'gpt-ü', KIND_SERVER, 5);
  writer.set('big', 'x'.repeat(20_000));
  writer.close(server, undefined, undefined, CALLER);
  await queue.flush();
  const spans = decodeTraces(sent[0]);
  assert.deepEqual(
    spans.map((s) => [s.name, String(s.attributes.big ?? '').length, s.traceId, s.spanId, s.parentSpanId]),
    [
      ['small', 0, root.traceHex, root.spanHex, ''],
      ['chat gpt-ü', 100, CALLER?.traceHex, attempt.spanHex, server.spanHex],
      ['chat gpt-ü', 20_000, CALLER?.traceHex, server.spanHex, CALLER?.spanHex],
    ],
  );
  assert.equal(spans[2].links[0].spanId, CALLER?.spanHex);
  assert.equal(spans[0].resource['service.name'], 'switchyard');
  assert.equal(spans[0].endNs, BigInt(Math.round((performance.timeOrigin + 5) * 1000)) * 1000n);
});

it('drops a span whose writing threw, and the next span is whole', async () => {
  const { queue, writer, sent } = recorder(() => true);
  const span = openRoot(undefined, true, performance.now());
  writer.open(span, 'broken', undefined, KIND_SERVER, 1);
  writer.set('half', 'written');
  writer.open(span, 'whole', undefined, KIND_SERVER, 1);
  writer.set('a', 1);
  writer.close(span, undefined, undefined, undefined);
  await queue.flush();
  assert.deepEqual(
    decodeTraces(sent[0]).map((s) => [s.name, s.attributes]),
    [['whole', { a: 1 }]],
  );
});

it('counts spans past a full queue as dropped, and keeps a failed batch as it was sent', async () => {
  const { queue, writer, sent, pending, dropped } = recorder(() => false, true);
  const span = openRoot(undefined, true, performance.now());
  for (let i = 0; i < MAX_QUEUE + 3; i++) {
    if (!writer.open(span, `s${i}`, undefined, KIND_SERVER, 1)) continue;
    writer.close(span, undefined, undefined, undefined);
  }
  assert.equal(sent.length, MAX_QUEUE / MAX_BATCH);
  assert.equal(dropped.queue_full, 3);
  const asSent = sent.map((b) => Buffer.from(b));
  for (const done of pending.splice(0)) done();
  // The failed batches' buffers are not written again: the transport may still hold them.
  for (let i = 0; i < MAX_BATCH; i++) {
    writer.open(span, 'later', undefined, KIND_SERVER, 1);
    writer.close(span, undefined, undefined, undefined);
  }
  assert.deepEqual(
    sent.slice(0, asSent.length).map((b) => Buffer.from(b)),
    asSent,
  );
  assert.equal(decodeTraces(sent[0])[0].name, 's0');
  assert.equal(dropped.export_failed, MAX_QUEUE);
  for (const done of pending.splice(0)) done();
  await queue.flush();
});

it("writes a span's name as the joined string would be, wherever the buffer has to grow", () => {
  for (const [op, model] of [
    ['chat', 'gpt-4o-mini'],
    ['chat', 'gpt-ü'],
    ['chat', 'm'.repeat(130)],
  ]) {
    const joined = new ProtoWriter(256);
    joined.stringField(5, `${op} ${model}`);
    const expected = joined.take();
    for (let size = 1; size < 40; size++) {
      const w = new ProtoWriter(size);
      w.joinedField(5, op, model);
      assert.deepEqual(w.take(), expected, `${op} ${model} from a ${size}-byte buffer`);
    }
  }
});
