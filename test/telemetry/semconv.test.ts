// The attribute names in src/telemetry/semconv.ts are copies (the package advises copying the
// incubating GenAI names rather than importing them at run time); each must equal the name the
// semantic-conventions package publishes, so a rename upstream fails here on upgrade.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import * as stable from '@opentelemetry/semantic-conventions';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import * as ours from '../../src/telemetry/semconv.ts';

const published: Record<string, unknown> = { ...stable, ...incubating };

it('every attribute name equals the published one of the same constant', () => {
  const names = Object.entries(ours).filter(([, v]) => typeof v === 'string');
  assert.ok(names.length >= 20);
  for (const [constant, value] of names) assert.equal(value, published[`ATTR_${constant}`], constant);
});

it('provider names are values the conventions list', () => {
  const listed = new Set(
    Object.entries(published)
      .filter(([k]) => k.startsWith('GEN_AI_PROVIDER_NAME_VALUE_'))
      .map(([, v]) => v),
  );
  for (const [vendor, name] of Object.entries(ours.PROVIDER_NAMES)) assert.ok(listed.has(name), `${vendor}: ${name}`);
});
