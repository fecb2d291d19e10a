// The dashboard at volume: how long the overview and the logs page take to show their data with
// 1,000,000 logged requests (BENCHMARKS.md "the dashboard"). The rows and their rollups are written
// straight into a gateway's SQLite store (test/ui/helpers/million.ts, which the 1,000,000-row test
// also uses), then each page is loaded in a new browser context (cold: JS and CSS fetched and
// parsed again) after one unmeasured warm-up load, timed in the page from navigation start until it
// shows its data. Debian's Chromium (/usr/bin/chromium) drives the pages.
//
//   node --import tsx bench/dashboard.ts [--rows 1000000] [--days 6.5] [--runs 5]
//
// The target is under 1 s at the median on an idle machine (issue 20). It is a goal reported here,
// not a test assertion: a machine busy with other work moves it by hundreds of milliseconds.
import { existsSync } from 'node:fs';
import { CHROMIUM, launch } from '../test/ui/helpers/browser.ts';
import { buildUi } from '../test/ui/helpers/build.ts';
import { startMillionGateway } from '../test/ui/helpers/million.ts';
import { READY, renderTime } from '../test/ui/helpers/render-time.ts';
import { median } from './stats.ts';

const TARGET_MS = 1000;

interface Options {
  rows: number;
  days: number;
  runs: number;
}

function options(argv: string[]): Options {
  const o: Options = { rows: 1_000_000, days: 6.5, runs: 5 };
  for (let i = 0; i < argv.length; i++) {
    const value = Number(argv[i + 1]);
    if (argv[i] === '--rows') o.rows = value;
    else if (argv[i] === '--days') o.days = value;
    else if (argv[i] === '--runs') o.runs = value;
    else throw new Error(`unknown option ${argv[i]} (options: --rows N, --days D, --runs N)`);
    if (!(value > 0)) throw new Error(`${argv[i]} needs a positive number`);
    i++;
  }
  return o;
}

const log = (msg: string) => process.stderr.write(`${msg}\n`);

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install chromium)`);
  const manifest = buildUi();
  log(`seeding ${o.rows.toLocaleString('en')} rows over ${o.days} days…`);
  const million = await startMillionGateway(o.rows, o.days * 86_400_000);
  log(`seeded in ${(million.seedMs / 1000).toFixed(1)} s`);
  const browser = await launch();
  const lines = [`| page | median | min | max | runs (ms) | target ${TARGET_MS} ms |`, '|---|---|---|---|---|---|'];
  try {
    for (const page of ['overview', 'logs'] as const) {
      await renderTime(browser, million.gw, page, READY[page]);
      const times: number[] = [];
      for (let i = 0; i < o.runs; i++) {
        const r = await renderTime(browser, million.gw, page, READY[page]);
        if (r.errors > 0) throw new Error(`${page} showed an error`);
        times.push(r.ms);
      }
      const mid = median(times);
      const ms = (x: number) => x.toFixed(0);
      lines.push(
        `| ${page} | ${ms(mid)} | ${ms(Math.min(...times))} | ${ms(Math.max(...times))} | ${times.map(ms).join(', ')} | ${mid < TARGET_MS ? 'met' : 'missed'} |`,
      );
    }
  } finally {
    await browser.close();
    await million.close();
  }
  const gz = (manifest.js_gzip_bytes / 1024).toFixed(1);
  process.stdout.write(`\n${o.rows.toLocaleString('en')} rows, JS bundle ${gz} KB gzipped\n\n${lines.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
