#!/usr/bin/env node
// Builds the dashboard (ui/) into ui/build: one minified JS bundle and one CSS file, named by
// content hash so the gateway can cache them for a year, an index.html naming them, a gzipped copy
// of each text asset (served as-is to clients that accept gzip, so nothing is compressed per
// request), and manifest.json with their sizes (read by the tests and the size budget).
//
// The routing-config schema the editor validates against is taken from openapi.yaml at build
// time: the UI gets the same schema the API publishes without parsing YAML in the browser.
//
// Every file is written to a temporary name and renamed into place, so two builds running at once
// (parallel test files) or a gateway reading while a build runs never see a half-written file.
// Preact, htm, uPlot and esbuild are devDependencies: without them the build is skipped with a
// message instead of failing, like the TypeScript build.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const UI = join(root, 'ui');
const OUT = join(UI, 'build');
const require = createRequire(import.meta.url);

function missingDependency() {
  for (const name of ['esbuild', 'preact', 'htm', 'uplot', 'yaml']) {
    try {
      require.resolve(`${name}/package.json`);
    } catch (err) {
      // htm's exports map hides package.json: resolvable, just not that subpath.
      if (err?.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') continue;
      return name;
    }
  }
  return null;
}

/** The body schemas of POST and PATCH /manage/v1/routing-configs, as published. */
async function routingConfigSchemas() {
  const { parse } = await import('yaml');
  const doc = parse(readFileSync(join(root, 'openapi.yaml'), 'utf8'));
  const path = doc?.paths?.['/manage/v1/routing-configs'];
  const item = doc?.paths?.['/manage/v1/routing-configs/{config_id}'];
  const body = (op) => op?.requestBody?.content?.['application/json']?.schema;
  const create = body(path?.post);
  const update = body(item?.patch);
  if (!create || !update) throw new Error('openapi.yaml has no routing-config request body schemas');
  return { create, update };
}

function writeAtomic(file, data) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

export async function buildUi({ quiet = false } = {}) {
  const missing = missingDependency();
  if (missing !== null) {
    process.stderr.write(
      `switchyard ui build skipped: ${missing} is not installed (the dashboard at /ui answers 503)\n`,
    );
    return null;
  }
  const esbuild = await import('esbuild');
  const schemas = await routingConfigSchemas();
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { app: join(UI, 'src', 'main.ts') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome100', 'firefox100', 'safari15'],
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    outdir: join(OUT, 'assets'),
    write: false,
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
    define: {
      __CONFIG_SCHEMAS__: JSON.stringify(schemas),
    },
  });
  const assets = [];
  for (const file of result.outputFiles) {
    const name = file.path.slice(join(OUT, 'assets').length + 1);
    assets.push({ name, contents: file.contents });
  }
  const js = assets.find((a) => a.name.endsWith('.js'));
  const css = assets.find((a) => a.name.endsWith('.css'));
  if (!js || !css) throw new Error('the ui build produced no JS or no CSS bundle');

  const template = readFileSync(join(UI, 'index.html'), 'utf8');
  const html = template
    .replaceAll('%APP_JS%', `/ui/assets/${js.name}`)
    .replaceAll('%APP_CSS%', `/ui/assets/${css.name}`);

  mkdirSync(join(OUT, 'assets'), { recursive: true });
  const manifest = { built_at: new Date().toISOString(), files: {} };
  const keep = new Set();
  const emit = (rel, contents) => {
    const file = join(OUT, rel);
    const gz = gzipSync(contents, { level: 9 });
    writeAtomic(file, contents);
    writeAtomic(`${file}.gz`, gz);
    keep.add(rel);
    keep.add(`${rel}.gz`);
    manifest.files[rel] = { bytes: contents.length, gzip_bytes: gz.length };
  };
  for (const a of assets) emit(join('assets', a.name), a.contents);
  emit('index.html', Buffer.from(html));

  // Hashed files of earlier builds: left behind they would only grow the folder. A build that
  // runs at the same time produces the same names from the same sources, so nothing it needs goes.
  for (const name of readdirSync(join(OUT, 'assets'))) {
    const rel = join('assets', name);
    if (!keep.has(rel) && !name.endsWith('.tmp')) rmSync(join(OUT, rel), { force: true });
  }
  const jsGzip = manifest.files[join('assets', js.name)].gzip_bytes;
  manifest.js = `assets/${js.name}`;
  manifest.css = `assets/${css.name}`;
  manifest.js_gzip_bytes = jsGzip;
  manifest.inputs_digest = inputsDigest();
  writeAtomic(join(OUT, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  if (!quiet) {
    process.stdout.write(
      `built ui/build/ (${js.name}: ${(jsGzip / 1024).toFixed(1)} KB gzipped, ${css.name}: ${(manifest.files[join('assets', css.name)].gzip_bytes / 1024).toFixed(1)} KB gzipped)\n`,
    );
  }
  return manifest;
}

/** A digest of everything the bundle is made from, so callers can tell a stale build. */
export function inputsDigest() {
  const h = createHash('sha256');
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name === 'build' && dir === UI) continue;
      const p = join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else h.update(p.slice(root.length)).update(readFileSync(p));
    }
  };
  walk(UI);
  h.update(readFileSync(join(root, 'openapi.yaml')));
  h.update(readFileSync(join(root, 'scripts', 'build-ui.js')));
  return h.digest('hex');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildUi().catch((err) => {
    process.stderr.write(`switchyard ui build failed: ${err?.message ?? err}\n`);
    for (const e of err?.errors ?? []) {
      const at = e.location ? `${e.location.file}:${e.location.line}:${e.location.column} ` : '';
      process.stderr.write(`  ${at}${e.text}\n`);
    }
    process.exit(1);
  });
}
