// Cross-check against the official AWS SDK: capture a Converse request the SDK signs, re-sign the
// same method/path/headers/body with signAws at the same instant, and compare the Authorization.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { signAws } from './sigv4.ts';

const CONVERSE_OK = JSON.stringify({
  output: { message: { role: 'assistant', content: [{ text: 'x' }] } },
  stopReason: 'end_turn',
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  metrics: { latencyMs: 1 },
});

it('produces the same signature as @aws-sdk/client-bedrock-runtime (ARN model id, session token, path prefix)', async () => {
  let captured: { url: string; headers: IncomingHttpHeaders; body: string } | undefined;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      captured = { url: req.url ?? '', headers: req.headers, body };
      res.writeHead(200, { 'content-type': 'application/json' }).end(CONVERSE_OK);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const client = new BedrockRuntimeClient({
      region: 'us-west-2',
      endpoint: `http://127.0.0.1:${port}/bedrock`,
      requestHandler: new NodeHttpHandler(),
      credentials: { accessKeyId: 'AKIDX', secretAccessKey: 'sek', sessionToken: 'tok' },
    });
    const modelId = 'arn:aws:bedrock:us-west-2:1:inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0';
    await client.send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }));
    assert.ok(captured);
    assert.equal(captured.url, `/bedrock/model/${encodeURIComponent(modelId)}/converse`);
    const sdkAuth = String(captured.headers.authorization);
    const signedNames = /SignedHeaders=([^,]+)/.exec(sdkAuth)?.[1].split(';') ?? [];
    const headers: Record<string, string> = {};
    // host, x-amz-date and the token header are added by signAws itself.
    for (const name of signedNames) {
      if (!['host', 'x-amz-date', 'x-amz-security-token'].includes(name))
        headers[name] = String(captured.headers[name]);
    }
    const d = String(captured.headers['x-amz-date']);
    const signingDate = new Date(
      `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(9, 11)}:${d.slice(11, 13)}:${d.slice(13, 15)}Z`,
    );
    const mine = await signAws(
      { method: 'POST', url: `http://127.0.0.1:${port}${captured.url}`, headers, body: captured.body },
      { apiKey: 'AKIDX::sek::us-west-2::tok' },
      { signingDate },
    );
    assert.equal(mine.headers.authorization, sdkAuth);
  } finally {
    server.close();
  }
});
