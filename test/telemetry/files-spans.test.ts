// The files endpoints are traced like the batch endpoints: one server span per call, continuing the
// caller's traceparent, answered in the response's traceparent, with the HTTP status and the
// request id; a refused call's span carries error.type. Calls go through the official openai SDK;
// spans are decoded with the official OTLP definitions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI, { toFile } from 'openai';
import type { FakeUpstream } from '../../tools/fake-upstream/server.ts';
import { callerTraceparent, startRecordingFake, startTracedGateway, type TracedGateway } from './env.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.ts';

const SERVER = 2;

describe('OpenTelemetry: files endpoints', () => {
  let fake: FakeUpstream;
  let receiver: OtlpReceiver;
  let gw: TracedGateway;
  let client: OpenAI;

  const spanOf = async (traceparent: string | null): Promise<ReceivedSpan> => {
    assert.match(traceparent ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const spanId = (traceparent as string).split('-')[2];
    const all = await receiver.waitFor((spans) => spans.some((s) => s.spanId === spanId));
    return all.find((s) => s.spanId === spanId) as ReceivedSpan;
  };

  before(async () => {
    fake = await startRecordingFake();
    receiver = await startOtlpReceiver();
    gw = await startTracedGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, fake);
    client = new OpenAI({ apiKey: gw.adminKey, baseURL: `${gw.url}/alpha/v1`, maxRetries: 0 });
  });
  after(async () => {
    await gw?.close();
    await receiver?.close();
    await fake?.close();
  });

  it('an upload and a download are server spans continuing the caller', async () => {
    const caller = callerTraceparent();
    const file = await toFile(Buffer.from('{"a":1}\n'), 'one.jsonl');
    const { data: created, response } = await client.files
      .create({ file, purpose: 'batch' }, { headers: { traceparent: caller.header } })
      .withResponse();
    const upload = await spanOf(response.headers.get('traceparent'));
    assert.equal(upload.kind, SERVER);
    assert.equal(upload.name, 'file_upload');
    assert.equal(upload.traceId, caller.traceId);
    assert.equal(upload.parentSpanId, caller.spanId);
    assert.equal(upload.attributes['http.request.method'], 'POST');
    assert.equal(upload.attributes['http.response.status_code'], 200);
    assert.equal(upload.attributes['error.type'], undefined);
    assert.equal(upload.attributes['switchyard.request_id'], response.headers.get('x-request-id'));

    const content = await client.files.content(created.id);
    assert.equal(await content.text(), '{"a":1}\n');
    const download = await spanOf(content.headers.get('traceparent'));
    assert.equal(download.name, 'file_download');
    assert.equal(download.attributes['http.request.method'], 'GET');
    assert.notEqual(download.traceId, caller.traceId, 'a call without traceparent starts its own trace');
  });

  it("a refused call's span has error.type", async () => {
    const { response } = await client.files
      .retrieve('file-unknown')
      .withResponse()
      .catch((err: unknown) => {
        assert.ok(err instanceof OpenAI.NotFoundError);
        return { response: { headers: err.headers } };
      });
    const span = await spanOf(response.headers.get('traceparent'));
    assert.equal(span.name, 'file_retrieve');
    assert.equal(span.attributes['http.response.status_code'], 404);
    assert.equal(span.attributes['error.type'], '404');
  });
});
