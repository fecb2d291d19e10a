// Vendor folders of one shape: the same file names for the same jobs and the same test names in
// every folder, all of a vendor's code in its own folder, and one reader of the recorded fixtures.
// Someone who knows one folder then knows where everything is in the others.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fixtureText, type VendorFolder } from './shared/fixtures.ts';

const ROOT = import.meta.dirname;

/** Folders of providers/ that are not a vendor. */
const NOT_VENDORS = new Set(['catalog', 'shared']);

const VENDOR_FOLDERS: readonly VendorFolder[] = ['anthropic', 'bedrock', 'gemini', 'openai-compatible'];

/** The job of each canonical file; a vendor may add helpers beside them (encode-messages.ts, ...). */
const CANONICAL_FILES: Readonly<Record<string, string>> = {
  'index.ts': 'the adapters the registry hands out',
  'capabilities.ts': 'what the wire carries of an IR request (WireCapabilities)',
  'encode-request.ts': 'IR request -> upstream body, with warnings',
  'decode-response.ts': 'upstream answer -> IR response',
  'stream-decoder.ts': 'upstream stream records -> IR events',
  'decode-error.ts': 'upstream error -> normalized error',
};

const CANONICAL_TESTS = [
  'index.test.ts',
  'encode-request.test.ts',
  'decode-response.test.ts',
  'stream-decoder.test.ts',
  'integration.test.ts',
];

const dirs = (path: string): string[] => readdirSync(path).filter((n) => statSync(join(path, n)).isDirectory());
const files = (path: string): string[] => readdirSync(path).filter((n) => statSync(join(path, n)).isFile());

test('the vendor folders are the ones listed here', () => {
  const found = dirs(ROOT).filter((d) => !NOT_VENDORS.has(d));
  assert.deepEqual(found.sort(), [...VENDOR_FOLDERS].sort());
});

test('every vendor folder has the canonical files and test names', () => {
  const missing: string[] = [];
  for (const vendor of VENDOR_FOLDERS) {
    const present = new Set(files(join(ROOT, vendor)));
    for (const [name, job] of Object.entries(CANONICAL_FILES)) {
      if (!present.has(name)) missing.push(`${vendor}/${name} (${job})`);
    }
    for (const name of CANONICAL_TESTS) if (!present.has(name)) missing.push(`${vendor}/${name}`);
  }
  assert.deepEqual(missing, []);
});

test('every capabilities.ts fills in the shared WireCapabilities shape', () => {
  for (const vendor of VENDOR_FOLDERS) {
    const text = readFileSync(join(ROOT, vendor, 'capabilities.ts'), 'utf8');
    assert.match(text, /\bWireCapabilities\b/, vendor);
  }
});

test('all Bedrock code lives in bedrock/: no bedrock file or import elsewhere', () => {
  const strays: string[] = [];
  for (const vendor of VENDOR_FOLDERS.filter((v) => v !== 'bedrock')) {
    for (const name of files(join(ROOT, vendor))) {
      if (/bedrock/i.test(name)) strays.push(`${vendor}/${name}`);
      const text = readFileSync(join(ROOT, vendor, name), 'utf8');
      if (/from '\.\.\/bedrock\//.test(text)) strays.push(`${vendor}/${name} imports ../bedrock/`);
    }
  }
  assert.deepEqual(strays, []);
});

test('fixtures are read only through shared/fixtures.ts, which reads every folder', () => {
  const ownReaders: string[] = [];
  for (const vendor of VENDOR_FOLDERS) {
    for (const name of files(join(ROOT, vendor)).filter((n) => n.endsWith('.ts'))) {
      if (readFileSync(join(ROOT, vendor, name), 'utf8').includes('__fixtures__')) ownReaders.push(`${vendor}/${name}`);
    }
    const recorded = join(ROOT, vendor, '__fixtures__');
    for (const fixture of files(recorded)) assert.ok(fixtureText(vendor, fixture).length > 0, `${vendor}/${fixture}`);
  }
  assert.deepEqual(ownReaders, []);
});
