// The per-call cost of API key controls (issue 33: at most ~2 us): the role check (may this key
// call models on a proxy path), the expiry / grace check and the last-used mark at authentication,
// plus the allow-list match where routing starts. Times the same loop for a key with a role and
// controls and for a key as it was before issue 33 (no role, no controls), and prints the
// difference per call.
//
//   node --import tsx bench/key-check.ts [--calls 2000000]
import { parseArgs } from 'node:util';
import { LocalChangeBus } from '../src/cluster/local/change-bus.ts';
import { keyRefusal } from '../src/http/auth.ts';
import { type Principal, PrincipalMirror } from '../src/live/principals.ts';
import { keyAllows } from '../src/pipeline/route.ts';
import { type ModelRef, parseModelRef } from '../src/providers/registry.ts';
import { createLogger } from '../src/util/logger.ts';
import { compileModelPatterns } from '../src/util/model-patterns.ts';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '2000000' } } });
const calls = Number(values.calls);

const mirror = new PrincipalMirror(
  {
    findByHash: async () => undefined,
    findAuthRow: async () => undefined,
    changedSince: async () => [],
  },
  new LocalChangeBus(),
  createLogger('silent'),
  3_600_000,
);

// Before roles: no role, no controls. Every case below carries a role that may call models, so the
// role check runs its whole course (role present, path looked at) on every call.
const base: Principal = { orgId: 'org_1', projectId: null, keyId: 'key_plain', rateLimits: null };
const PROXY_PATH = '/v1/chat/completions';
const expiresAtMs = Date.now() + 86_400_000;
const many = [...Array.from({ length: 49 }, (_, i) => `vendor${i}-model-*`), 'gpt-4o*'];

interface Case {
  name: string;
  principal: Principal;
  model: string;
}

const cases: Case[] = [
  {
    name: 'role inference only (no allowed_models, no expiry)',
    principal: { ...base, keyId: 'key_role', role: 'inference' },
    model: 'openai/gpt-4o-mini',
  },
  {
    name: "allowed_models ['gpt-4o*'] + expires_at, allowed",
    principal: {
      ...base,
      keyId: 'key_one',
      role: 'developer',
      modelAllow: compileModelPatterns(['gpt-4o*']),
      expiresAtMs,
    },
    model: 'openai/gpt-4o-mini',
  },
  {
    name: '50 patterns (match on the last) + expires_at, allowed',
    principal: { ...base, keyId: 'key_many', role: 'inference', modelAllow: compileModelPatterns(many), expiresAtMs },
    model: 'openai/gpt-4o-mini',
  },
  {
    name: "allowed_models ['openai/*'], bare name (canonical fallback)",
    principal: {
      ...base,
      keyId: 'key_vendor',
      role: 'admin',
      modelAllow: compileModelPatterns(['openai/*']),
      expiresAtMs,
    },
    model: 'gpt-4o-mini',
  },
];

/** What the controls add to a call; the baseline runs the same loop for a key with none. */
function loop(p: Principal, model: string, ref: ModelRef, n: number): number {
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const now = Date.now();
    if (keyRefusal(p, now, PROXY_PATH) !== undefined) sink++;
    mirror.noteUse(p, now);
    const allow = p.modelAllow;
    if (allow != null && !keyAllows(allow, model, ref)) sink++;
  }
  const ns = Number(process.hrtime.bigint() - t0);
  if (sink !== 0) throw new Error('a case was refused');
  return ns / n;
}

for (const c of cases) {
  const ref = parseModelRef(c.model);
  if (!ref) throw new Error(`unparseable ${c.model}`);
  loop(c.principal, c.model, ref, 200_000);
  loop(base, c.model, ref, 200_000);
  const withControls = loop(c.principal, c.model, ref, calls);
  const without = loop(base, c.model, ref, calls);
  const added = (withControls - without) / 1000;
  process.stdout.write(
    `${c.name}: ${(withControls / 1000).toFixed(3)} us with, ${(without / 1000).toFixed(3)} us without, +${added.toFixed(3)} us\n`,
  );
}
mirror.stop();
