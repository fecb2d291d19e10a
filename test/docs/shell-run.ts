// Runs Markdown shell blocks in one bash process, in order, so that variables carry from block to
// block the way they do for a reader pasting them into one terminal. prelude.sh brackets every block
// with markers in a scratch dir; from those this module tells which block failed, with its output.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DocBlock } from './markdown-blocks.ts';

export type BlockOutcome =
  | { kind: 'passed'; output: string }
  | { kind: 'failed'; output: string; exitStatus: number | null; timedOut: boolean }
  | { kind: 'skipped'; reason: string }
  | { kind: 'not-run' };

export interface BlockResult {
  block: DocBlock;
  outcome: BlockOutcome;
}

export interface ShellRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** For the whole run; the block running when it passes is reported as failed. */
  timeoutMs: number;
}

const PRELUDE = fileURLToPath(new URL('./prelude.sh', import.meta.url));

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

function script(blocks: DocBlock[]): string {
  const lines = [`source ${quote(PRELUDE)}`];
  blocks.forEach((b, i) => {
    if (b.annotation?.kind === 'skip') return;
    const expect = b.annotation?.kind === 'expect-status' ? b.annotation.statuses.join(' ') : '';
    // Sourced rather than inlined, so that a block's own syntax error stays inside that block and
    // LINENO counts from the block's first line.
    lines.push(`__dt_begin ${i} ${b.line} ${quote(expect)}`, `source "$__DT/block-${i}.sh"`, '__dt_end');
  });
  return `${lines.join('\n')}\n`;
}

function runBash(file: string, opts: ShellRunOptions): Promise<{ status: number | null; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    // Its own process group, so that a timeout also ends whatever a block started.
    const child = spawn('bash', [file], { cwd: opts.cwd, env: opts.env, stdio: 'ignore', detached: true });
    let timedOut = false;
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // the group is already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGKILL');
    }, opts.timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      killGroup('SIGTERM');
      resolve({ status: code, timedOut });
    });
  });
}

const readOr = (path: string, fallback: string): string => (existsSync(path) ? readFileSync(path, 'utf8') : fallback);

export async function runShellBlocks(blocks: DocBlock[], opts: ShellRunOptions): Promise<BlockResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sy-doc-test-'));
  try {
    blocks.forEach((b, i) => {
      writeFileSync(join(dir, `block-${i}.sh`), `${b.code}\n`);
    });
    const main = join(dir, 'main.sh');
    writeFileSync(main, script(blocks));
    const run = await runBash(main, { ...opts, env: { ...opts.env, __DT: dir } });
    const done = new Set(readOr(join(dir, 'done'), '').split('\n').filter(Boolean).map(Number));
    const current = Number(readOr(join(dir, 'current'), '-1').trim());
    return blocks.map((block, i): BlockResult => {
      if (block.annotation?.kind === 'skip')
        return { block, outcome: { kind: 'skipped', reason: block.annotation.reason } };
      const output = readOr(join(dir, `out-${i}`), '');
      if (done.has(i)) return { block, outcome: { kind: 'passed', output } };
      if (i !== current) return { block, outcome: { kind: 'not-run' } };
      return { block, outcome: { kind: 'failed', output, exitStatus: run.status, timedOut: run.timedOut } };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
