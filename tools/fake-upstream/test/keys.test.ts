// The emulation accepts any non-empty key (the README's `az-...`, `gm-fake`), refuses the keys the
// script names as wrong (a `bad`, `invalid` or `revoked` part), and answers a missing or blank key
// the way each vendor answers no key at all.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isRefusedKey } from '../script.ts';
import { type FakeUpstream, raw, startTestFake } from './helpers.ts';

let fake: FakeUpstream;
before(async () => {
  fake = await startTestFake();
});
after(() => fake.close());

interface Vendor {
  name: string;
  path: string;
  body: unknown;
  /** Headers that carry `key`; an empty key sends the header with no value. */
  auth: (key: string) => Record<string, string>;
  refused: number;
  missing: number;
  /** Something in the refusal that tells "no key" from "wrong key", as the vendor words it. */
  missingText: RegExp;
}

const anthropicBody = { model: 'claude-haiku-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
const VENDORS: Vendor[] = [
  {
    name: 'openai',
    path: '/openai/v1/chat/completions',
    body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    auth: (key) => ({ authorization: `Bearer ${key}` }),
    refused: 401,
    missing: 401,
    missingText: /didn't provide an API key/,
  },
  {
    name: 'together',
    path: '/together/v1/chat/completions',
    body: { model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', messages: [{ role: 'user', content: 'hi' }] },
    auth: (key) => ({ authorization: `Bearer ${key}` }),
    refused: 401,
    missing: 401,
    missingText: /didn't provide an API key/,
  },
  {
    name: 'azure (api-key)',
    path: '/azure/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21',
    body: { messages: [{ role: 'user', content: 'hi' }] },
    auth: (key) => ({ 'api-key': key }),
    refused: 401,
    missing: 401,
    missingText: /missing subscription key/,
  },
  {
    name: 'azure (Entra bearer)',
    path: '/azure/openai/v1/chat/completions',
    body: { model: 'gpt4o', messages: [{ role: 'user', content: 'hi' }] },
    auth: (key) => ({ authorization: `Bearer ${key}` }),
    refused: 401,
    missing: 401,
    missingText: /missing subscription key/,
  },
  {
    name: 'anthropic (x-api-key)',
    path: '/anthropic/v1/messages',
    body: anthropicBody,
    auth: (key) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' }),
    refused: 401,
    missing: 401,
    missingText: /x-api-key header is required/,
  },
  {
    name: 'google',
    path: '/google/v1beta/models/gemini-2.5-flash:generateContent',
    body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
    auth: (key) => ({ 'x-goog-api-key': key }),
    refused: 401,
    missing: 401,
    missingText: /Missing API key/,
  },
  {
    name: 'bedrock (API key)',
    path: '/bedrock/model/anthropic.claude-3-haiku/converse',
    body: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] },
    auth: (key) => ({ authorization: key === '' ? '' : `Bearer ${key}` }),
    refused: 403,
    missing: 403,
    missingText: /Missing Authentication Token/,
  },
];

describe('scripted keys', () => {
  test('a key is refused only for a whole bad/invalid/revoked part', () => {
    for (const k of ['sk-bad-key', 'fw-bad-key-999999', 'revoked-key-0000000BAD1', 'INVALID', 'az_invalid_1']) {
      assert.equal(isRefusedKey(k), true, k);
    }
    for (const k of ['az-123', 'gm-fake', 'sk-test', 'sk-3bad9f0a', 'badger', 'tg-key-one-123456', 'x']) {
      assert.equal(isRefusedKey(k), false, k);
    }
  });

  for (const v of VENDORS) {
    test(`${v.name}: any other key works; a refused or missing key gets the vendor's answer`, async () => {
      for (const key of ['az-1234', 'gm-fake', 'k', 'sk-test-key']) {
        const r = await raw(fake, 'POST', v.path, v.body, v.auth(key));
        assert.equal(r.status, 200, `${key}: ${r.text}`);
      }
      const refused = await raw(fake, 'POST', v.path, v.body, v.auth('az-bad-key'));
      assert.equal(refused.status, v.refused, refused.text);
      assert.doesNotMatch(refused.text, v.missingText, 'a wrong key is not reported as a missing one');
      const blank = await raw(fake, 'POST', v.path, v.body, v.auth(''));
      assert.equal(blank.status, v.missing, blank.text);
      assert.match(blank.text, v.missingText);
      const { authorization: _a, 'api-key': _k, 'x-api-key': _x, 'x-goog-api-key': _g, ...none } = v.auth('k');
      const missing = await raw(fake, 'POST', v.path, v.body, none);
      assert.equal(missing.status, v.missing, missing.text);
      assert.match(missing.text, v.missingText);
    });
  }
});
