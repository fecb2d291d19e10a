// Requests refused before any route runs still answer in the path's documented error shape.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Gateway, startGateway } from '../helpers/gateway.ts';

let gw: Gateway;

before(async () => {
  gw = await startGateway();
});
after(async () => {
  await gw?.close();
});

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${gw.adminKey}`, ...headers } });
  return { status: res.status, body: JSON.parse(await res.text()) as Record<string, Record<string, unknown>> };
}

/** Sends raw bytes and returns the status line and the JSON body of the answer. */
function raw(bytes: string): Promise<{ status: number; body: Record<string, Record<string, unknown>> }> {
  const { port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1');
    let data = '';
    s.on('data', (c) => {
      data += c.toString('latin1');
    });
    s.on('error', reject);
    s.on('close', () => {
      const [head, body] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(body) });
    });
    s.write(bytes);
  });
}

describe('transport-level errors', () => {
  test('%ff in a path: 400 invalid_url, in the family shape', async () => {
    const alpha = await get('/manage/v1/projects/%ff');
    assert.equal(alpha.status, 400);
    assert.equal(alpha.body.error.code, 'invalid_url');
    const beta = await get('/beta/v1/messages/%ff');
    assert.equal(beta.status, 400);
    assert.equal(beta.body.type as unknown, 'error');
    assert.equal(beta.body.error.type, 'invalid_request_error');
  });

  test('a 101-character path id: 414 path_too_long', async () => {
    const r = await get(`/manage/v1/projects/${'a'.repeat(101)}`);
    assert.equal(r.status, 414);
    assert.equal(r.body.error.code, 'path_too_long');
  });

  test('headers over 16 KB: 431 headers_too_large', async () => {
    const r = await raw(`GET /beta/v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`);
    assert.equal(r.status, 431);
    assert.equal(r.body.error.type, 'invalid_request_error');
    assert.equal(r.body.type as unknown, 'error');
  });

  test('a bad content-length or transfer-encoding: 400 malformed_request', async () => {
    const cl = await raw('POST /alpha/v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    assert.equal(cl.status, 400);
    assert.equal(cl.body.error.code, 'malformed_request');
    const te = await raw(
      `POST /alpha/v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gw.adminKey}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: bogus\r\n\r\n{}',
    );
    assert.equal(te.status, 400);
    assert.equal(te.body.error.code, 'malformed_request');
  });
});
