// User regexes that can backtrack catastrophically are refused at create and update with a 400
// naming the pattern; ordinary ones are accepted; and at run time a regex only ever sees a bounded
// window of text, finding what a scan of the whole text finds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { REGEX_WINDOW_STEP, windowedMatches } from '../../src/guardrails/compile.ts';
import { regexRisk } from '../../src/guardrails/redos.ts';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

type Json = Record<string, unknown>;

const EVIL = ['(a+)+$', '(a|aa)+$', '^(a|aa)+$', '(.*a){12}', '(\\w+\\s?)+$', 'a.*b.*c.*d'];
const ORDINARY = [
  '\\bproject\\s+zeus\\b',
  'sk-[A-Za-z0-9]{20,}',
  'ACME-\\d{4,8}',
  '^[a-z0-9._%+-]+@example\\.com$',
  'password\\s*[:=]\\s*\\S+',
  'foo.*bar',
  '(a|aa)+',
];

describe('regex safety', () => {
  for (const p of EVIL)
    test(`refused: ${p}`, async () => {
      assert.notEqual(await regexRisk(p, ''), null);
    });

  test('ordinary patterns are accepted', async () => {
    // `(a|aa)+` alone always stops at its first match and cannot fail once started: it is linear
    // (the analyzer proves it); followed by anything that can fail (`$`, `b`) it is refused above.
    for (const p of ORDINARY) assert.equal(await regexRisk(p, ''), null, p);
    assert.equal(await regexRisk('\\bzeus\\b', 'iu'), null);
  });

  test('a windowed scan finds what a whole scan finds, and no window is longer than step + max_match', () => {
    const maxLen = 40;
    const unit = 'lorem ipsum ACME-1234 dolor '.repeat(7);
    const text = `${unit}x`.repeat(Math.ceil((REGEX_WINDOW_STEP * 5) / unit.length));
    for (const p of ['ACME-\\d{4}', 'ipsum ACME-\\d+ dolor', '\\bdolor\\s+lorem\\b']) {
      const re = new RegExp(p, 'g');
      const whole: Array<[number, number]> = [];
      for (const m of text.matchAll(re)) whole.push([m.index, m.index + m[0].length]);
      const seen: Array<[number, number]> = [];
      let longest = 0;
      const spy = new RegExp(p, 'g');
      const exec = spy.exec.bind(spy);
      spy.exec = (s: string) => {
        longest = Math.max(longest, s.length);
        return exec(s);
      };
      windowedMatches(spy, text, maxLen, (s, e) => seen.push([s, e]));
      assert.ok(whole.length > 10, p);
      assert.deepEqual(seen, whole, p);
      assert.ok(longest <= REGEX_WINDOW_STEP + maxLen, `${p}: ${longest}`);
    }
  });
});

describe('regex safety at the management API', () => {
  let env: ProxyEnv;
  before(async () => {
    env = await startProxyEnv();
  });
  after(async () => {
    await env?.close();
  });

  test('create and update refuse an evil pattern with a 400 naming it', async () => {
    const check = (patterns: string[]) => ({ type: 'regex', stage: 'input', action: 'block', patterns });
    const body = (patterns: string[]) => ({
      name: 'redos',
      scope: { type: 'org' },
      mode: 'enforce',
      checks: [check(patterns)],
    });
    const refused = await api(env.gw, 'POST', '/manage/v1/guardrails', body(['\\bok\\b', '(a+)+$']));
    assert.equal(refused.status, 400, JSON.stringify(refused.json));
    const e = (refused.json as { error: Json }).error;
    assert.equal(e.code, 'invalid_parameter');
    assert.equal(e.param, 'checks[0].patterns[1]');
    assert.match(String(e.message), /"\(a\+\)\+\$"/);
    assert.match(String(e.message), /exponential/);

    const made = await api(env.gw, 'POST', '/manage/v1/guardrails', body(['\\bok\\b']));
    assert.equal(made.status, 201, JSON.stringify(made.json));
    const id = (made.json as Json).id as string;
    const update = await api(env.gw, 'PATCH', `/manage/v1/guardrails/${id}`, { checks: [check(['(.*a){12}'])] });
    assert.equal(update.status, 400, JSON.stringify(update.json));
    assert.match(String((update.json as { error: Json }).error.message), /\(\.\*a\)\{12\}/);
    const kept = await api(env.gw, 'GET', `/manage/v1/guardrails/${id}`);
    assert.deepEqual(((kept.json as Json).checks as Json[])[0]?.patterns, ['\\bok\\b']);
    await api(env.gw, 'DELETE', `/manage/v1/guardrails/${id}`);
  });
});
