// `switchyard batch run input.jsonl`: a client of a running gateway. It uploads the input as a
// gateway-held file (so the gateway's local executor runs it, for any vendor or @slug), creates an
// alpha batch, shows its progress on stderr while polling, and writes one result line per input line
// in the input's order. Ctrl-C cancels the batch and still writes the partial results; a second
// Ctrl-C exits at once. Exit codes: 0 completed (even with failed lines), 1 failed / expired / a
// gateway error, 2 a bad input or usage, 130 interrupted.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { loadConfig } from '../config.ts';
import { type BatchObject, costOf, GatewayCallError, GatewayClient } from './batch-client.ts';
import { type InputProblem, mergeResults, prepareBatchInput } from './batch-input.ts';
import {
  formatPlainProgress,
  formatSummary,
  formatTtyProgress,
  ProgressMeter,
  type ProgressSnapshot,
  progressKey,
} from './batch-progress.ts';

export interface BatchRunOptions {
  model?: string;
  out?: string;
  concurrency?: number;
  url?: string;
  apiKey?: string;
}

const POLL_MS = 500;
/** A plain (not a terminal) progress line is printed at most this often. */
const PLAIN_EVERY_MS = 1000;
/** While polling, a gateway that cannot be reached (a restart) is waited for this long. */
const UNREACHABLE_GRACE_MS = 30_000;
/** A second SIGINT sooner than this after the first is the same Ctrl-C, delivered twice. */
const REPEAT_AFTER_MS = 500;
const TERMINAL = ['completed', 'failed', 'expired', 'cancelled'];
const SHOWN_PROBLEMS = 10;

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const EXIT_INTERRUPTED = 130;

const say = (text: string) => process.stderr.write(`${text}\n`);

/** `<input basename>.results.jsonl` next to the input. */
export function defaultOutPath(inputPath: string): string {
  const abs = resolve(inputPath);
  const ext = extname(abs);
  return join(dirname(abs), `${basename(abs, ext)}.results.jsonl`);
}

function problemsText(file: string, problems: InputProblem[]): string {
  const shown = problems
    .slice(0, SHOWN_PROBLEMS)
    .map((p) => (p.line > 0 ? `${file}:${p.line}: ` : `${file}: `) + p.message);
  if (problems.length > SHOWN_PROBLEMS) shown.push(`... and ${problems.length - SHOWN_PROBLEMS} more`);
  return shown.join('\n');
}

/** Draws progress on stderr: one line redrawn in place on a terminal, else a line per change, at most once a second. */
class ProgressView {
  readonly #tty = process.stderr.isTTY === true;
  #drawn = false;
  #lastKey = '';
  #lastAt = 0;
  #pending: ProgressSnapshot | undefined;

  show(s: ProgressSnapshot, now: number): void {
    if (this.#tty) {
      process.stderr.write(`\r${formatTtyProgress(s, process.stderr.columns || 80)}\x1b[K`);
      this.#drawn = true;
      return;
    }
    const key = progressKey(s);
    if (key === this.#lastKey) return;
    if (now - this.#lastAt < PLAIN_EVERY_MS) {
      this.#pending = s;
      return;
    }
    this.#print(s, now);
  }

  #print(s: ProgressSnapshot, now: number): void {
    say(formatPlainProgress(s));
    this.#lastKey = progressKey(s);
    this.#lastAt = now;
    this.#pending = undefined;
  }

  /** Before any other message: ends the redrawn line, or prints the change held back. */
  settle(now: number, final = false): void {
    if (this.#drawn) {
      process.stderr.write('\n');
      this.#drawn = false;
    }
    if (final && this.#pending !== undefined && progressKey(this.#pending) !== this.#lastKey)
      this.#print(this.#pending, now);
  }
}

export async function batchRunCommand(input: string, opts: BatchRunOptions): Promise<number> {
  const apiKey = opts.apiKey ?? process.env.SWITCHYARD_API_KEY?.trim();
  if (!apiKey) {
    say('switchyard batch run: no API key; pass --api-key sy-... or set SWITCHYARD_API_KEY');
    return EXIT_USAGE;
  }
  const baseUrl = opts.url ?? (process.env.SWITCHYARD_URL?.trim() || `http://127.0.0.1:${loadConfig({}).port}`);
  if (!/^https?:\/\//.test(baseUrl)) {
    say(`switchyard batch run: the gateway URL must start with http:// or https://, got "${baseUrl}"`);
    return EXIT_USAGE;
  }
  const inputPath = resolve(input);
  const outPath = opts.out !== undefined ? resolve(opts.out) : defaultOutPath(inputPath);
  if (outPath === inputPath) {
    say(`switchyard batch run: --out ${opts.out} would overwrite the input`);
    return EXIT_USAGE;
  }
  let text: string;
  try {
    text = readFileSync(inputPath, 'utf8');
  } catch (err) {
    say(`switchyard batch run: cannot read ${input}: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT_USAGE;
  }
  const prepared = prepareBatchInput(text, { model: opts.model });
  if (!prepared.ok) {
    say(problemsText(input, prepared.problems));
    say('switchyard batch run: nothing was uploaded');
    return EXIT_USAGE;
  }
  const run = new BatchRun(new GatewayClient(baseUrl, apiKey), outPath);
  process.on('SIGINT', run.onInterrupt);
  try {
    return await run.execute(basename(inputPath), prepared.batch, opts.concurrency);
  } catch (err) {
    run.view.settle(Date.now());
    if (!(err instanceof GatewayCallError)) throw err;
    say(`switchyard batch run: ${err.message}`);
    return EXIT_FAILED;
  } finally {
    process.off('SIGINT', run.onInterrupt);
  }
}

class BatchRun {
  readonly view = new ProgressView();
  readonly #client: GatewayClient;
  readonly #outPath: string;
  #interruptedAt: number | undefined;
  #batchId: string | undefined;
  /** The cancel call, once sent (it never rejects: a refusal is only reported). */
  #cancel: Promise<void> | undefined;
  #wake: (() => void) | undefined;

  constructor(client: GatewayClient, outPath: string) {
    this.#client = client;
    this.#outPath = outPath;
  }

  get #interrupted(): boolean {
    return this.#interruptedAt !== undefined;
  }

  /**
   * The first Ctrl-C sends the cancel and lets polling go on until the batch stops; a second one
   * exits at once. A SIGINT within REPEAT_AFTER_MS of the first is the same keypress delivered twice:
   * under `npx` the terminal signals both npm and this process, and npm forwards its copy here.
   */
  readonly onInterrupt = (): void => {
    const now = Date.now();
    if (this.#interruptedAt !== undefined) {
      if (now - this.#interruptedAt < REPEAT_AFTER_MS) return;
      this.view.settle(now);
      say('interrupted again: exiting without waiting for the batch to stop');
      process.exit(EXIT_INTERRUPTED);
    }
    this.#interruptedAt = now;
    this.#sendCancel();
    this.#wake?.();
  };

  #sendCancel(): void {
    const id = this.#batchId;
    if (id === undefined || this.#cancel !== undefined) return;
    this.view.settle(Date.now());
    say(`cancelling batch ${id}; the results so far will be written (Ctrl-C again to exit at once)`);
    this.#cancel = this.#client.cancelBatch(id).then(
      () => undefined,
      (err: unknown) => {
        // Typically: the batch ended meanwhile (a finished batch cannot be cancelled).
        this.view.settle(Date.now());
        say(`cancel: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolveSleep) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolveSleep();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolveSleep();
      };
    });
  }

  async execute(
    filename: string,
    batch: { endpoint: string; customIds: string[]; jsonl: string },
    concurrency: number | undefined,
  ): Promise<number> {
    const total = batch.customIds.length;
    const file = await this.#client.uploadBatchFile(batch.jsonl, filename);
    say(`uploaded ${filename} (${total} request${total === 1 ? '' : 's'}) as ${file.id}`);
    if (this.#interrupted) {
      say('interrupted before the batch was created: nothing to cancel');
      return EXIT_INTERRUPTED;
    }
    const created = await this.#client.createBatch(file.id, batch.endpoint, concurrency);
    const createdAt = Date.now();
    say(`batch ${created.id} created (${batch.endpoint}); Ctrl-C cancels it`);
    this.#batchId = created.id;
    if (this.#interrupted) this.#sendCancel();
    const ended = await this.#poll(created, createdAt);
    await this.#cancel;
    this.view.settle(Date.now(), true);

    const [output, errors] = await Promise.all([
      ended.batch.output_file_id ? this.#client.fileContent(ended.batch.output_file_id) : '',
      ended.batch.error_file_id ? this.#client.fileContent(ended.batch.error_file_id) : '',
    ]);
    const merged = mergeResults(batch.customIds, output, errors, ended.batch.status);
    const tmp = `${this.#outPath}.partial`;
    writeFileSync(tmp, merged.text);
    renameSync(tmp, this.#outPath);
    if (merged.missing > 0)
      say(`note: the gateway returned no line for ${merged.missing} request(s); marked as errors`);
    if (merged.unknown > 0) say(`note: ${merged.unknown} result line(s) matched no input request and were left out`);

    const counts = ended.batch.request_counts ?? {};
    process.stderr.write(
      formatSummary({
        batchId: ended.batch.id,
        status: ended.batch.status,
        total: counts.total ?? total,
        completed: counts.completed ?? 0,
        failed: counts.failed ?? 0,
        elapsedMs: Date.now() - createdAt,
        costUsd: costOf(ended.batch, ended.headers),
        outPath: this.#outPath,
        errors: (ended.batch.errors?.data ?? []).map((e) => e.message ?? e.code ?? JSON.stringify(e)),
      }),
    );
    process.stdout.write(`${this.#outPath}\n`);
    if (this.#interrupted) return EXIT_INTERRUPTED;
    return ended.batch.status === 'completed' ? EXIT_OK : EXIT_FAILED;
  }

  /** Polls until the batch ends, drawing its progress. */
  async #poll(created: BatchObject, createdAt: number): Promise<{ batch: BatchObject; headers?: Headers }> {
    const meter = new ProgressMeter(createdAt);
    let current: { batch: BatchObject; headers?: Headers } = { batch: created };
    let unreachableSince: number | undefined;
    for (;;) {
      const b = current.batch;
      const counts = b.request_counts ?? {};
      const now = Date.now();
      this.view.show(
        meter.observe(now, {
          id: b.id,
          status: b.status,
          total: counts.total ?? 0,
          completed: counts.completed ?? 0,
          failed: counts.failed ?? 0,
        }),
        now,
      );
      if (TERMINAL.includes(b.status)) return current;
      await this.#sleep(POLL_MS);
      try {
        current = await this.#client.getBatch(created.id);
        unreachableSince = undefined;
      } catch (err) {
        // A gateway restarting is waited for (the batch resumes there); an error it answers is final.
        if (!(err instanceof GatewayCallError) || err.status !== 0) throw err;
        unreachableSince ??= Date.now();
        if (Date.now() - unreachableSince > UNREACHABLE_GRACE_MS) throw err;
      }
    }
  }
}
