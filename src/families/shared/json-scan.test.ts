import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  scanMembers,
  stringAt,
  stringMember,
  topLevelStringMember,
  withMemberAdded,
  withoutNullMember,
} from './json-scan.ts';

test('scanMembers finds members whatever the spacing, never text inside strings', () => {
  const text = '{"a": "say \\"usage\\": 1", "usage" :\n null, "x": {"usage": 2, "usage_details": 3}, "b": "usage"}';
  const first: number[] = [];
  const count: number[] = [];
  scanMembers(text, ['usage', 'a', 'missing'], first, count);
  assert.deepEqual(count, [2, 1, 0]);
  assert.equal(text.slice(first[0], first[0] + 4), 'null');
  assert.equal(first[2], -1);
});

test('stringAt unescapes only when it has to and refuses what is not a string', () => {
  const text = '{"a":"plain","b":"tab\\t \\"q\\" \\u00e9 \\\\","c":12,"d":"ends with \\\\"}';
  assert.equal(stringMember(text, 'a'), 'plain');
  assert.equal(stringMember(text, 'b'), 'tab\t "q" é \\');
  assert.equal(stringMember(text, 'c'), undefined);
  assert.equal(stringMember(text, 'd'), 'ends with \\');
  assert.equal(stringAt('"unterminated', 0), undefined);
});

test('withoutNullMember cuts the member wherever it stands and keeps the JSON valid', () => {
  const cases: Array<[string, unknown]> = [
    ['{"id":"a","choices":[],"usage":null}', { id: 'a', choices: [] }],
    ['{"usage":null,"id":"a"}', { id: 'a' }],
    ['{"id":"a", "usage" : null , "x":1}', { id: 'a', x: 1 }],
    ['{"usage":null}', {}],
    [
      '{"id":"a","choices":[{"delta":{"content":"\\"usage\\":null"}}],"usage":null}',
      { id: 'a', choices: [{ delta: { content: '"usage":null' } }] },
    ],
  ];
  for (const [input, expected] of cases) {
    const out = withoutNullMember(input, 'usage');
    assert.ok(out !== undefined, input);
    assert.deepEqual(JSON.parse(out), expected, input);
  }
});

test('withoutNullMember gives up when the member is absent, repeated or not null', () => {
  assert.equal(withoutNullMember('{"id":"a"}', 'usage'), undefined);
  assert.equal(withoutNullMember('{"x":{"usage":null},"usage":null}', 'usage'), undefined);
  assert.equal(withoutNullMember('{"usage":{"prompt_tokens":1}}', 'usage'), undefined);
});

test('topLevelStringMember finds the one top-level member, not nested ones of the same name', () => {
  const text =
    '{ "messages" : [{"role":"user","content":"\\"model\\": \\"x\\""}], "tools":[{"function":{"parameters":{"properties":{"model":{"type":"string"}},"default":{"model":"nested"}}}}],\n "model" : "gpt-4o" }';
  const at = topLevelStringMember(text, 'model');
  assert.ok(at);
  assert.equal(text.slice(at.start, at.end), '"gpt-4o"');
});

test('topLevelStringMember refuses a repeated, missing or non-string member and non-objects', () => {
  assert.equal(topLevelStringMember('{"model":"a","model":"b"}', 'model'), undefined);
  assert.equal(topLevelStringMember('{"x":{"model":"a"}}', 'model'), undefined);
  assert.equal(topLevelStringMember('{"model":1}', 'model'), undefined);
  assert.equal(topLevelStringMember('["model"]', 'model'), undefined);
  assert.equal(topLevelStringMember('{"model":"a', 'model'), undefined);
});

test('withMemberAdded appends to the top-level object, empty or not', () => {
  assert.deepEqual(JSON.parse(withMemberAdded('{"a":{"b":1}} \n', '"c":2') ?? ''), { a: { b: 1 }, c: 2 });
  assert.deepEqual(JSON.parse(withMemberAdded('{ }', '"c":2') ?? ''), { c: 2 });
  assert.equal(withMemberAdded('no object', '"c":2'), undefined);
});
