// The output checks of one streamed answer, as the pipeline's StreamGuard: text deltas go through
// the stream scanner (held back only as far as a match needs), one scan per upstream read rather
// than per delta (a read often brings several, and each scan costs about as much whatever its
// length), tool-call arguments get their
// placeholders restored, and a refusal ends the stream after the text before the match. Webhook
// checks see the whole answer once, at the end; the stop is held back until they answered, so a
// refusal still ends the stream with the error record instead of a normal stop.
import type { ChatResponse, StreamEvent } from '../ir/types.ts';
import type { StreamGuard, StreamGuardStep } from '../pipeline/guard.ts';
import { type ActiveCheck, activeChecks, textPass, VerdictTally } from './engine.ts';
import { type HookContext, runHooks } from './hooks.ts';
import { evaluateOutputChecks } from './output.ts';
import type { CallVerdicts } from './pipeline-verdicts.ts';
import type { PlaceholderBook } from './placeholders.ts';
import type { GuardrailPolicy, GuardrailWebhookCaller } from './policy.ts';
import {
  type ArgsRestoreState,
  endOutputScan,
  flushOutputBlock,
  type OutputScanState,
  restoreArgsDelta,
  scanOutputDelta,
  startOutputScan,
} from './stream-scanner.ts';

export interface StreamGuardDeps {
  policies: readonly GuardrailPolicy[];
  book: PlaceholderBook;
  verdicts: CallVerdicts;
  ctx: HookContext;
  callHook: GuardrailWebhookCaller;
}

export class GuardrailStream implements StreamGuard {
  readonly #d: StreamGuardDeps;
  readonly #scan: OutputScanState;
  readonly #hooks: ActiveCheck[];
  /** Block index -> 'text' | 'tool' | other, from block_start. */
  readonly #kinds = new Map<number, string>();
  readonly #args = new Map<number, ArgsRestoreState>();
  /** The stop and what follows it, held while the end-of-answer hooks have yet to answer. */
  readonly #tail: StreamEvent[] = [];
  #lastText = -1;
  /** Text deltas of the current upstream read (block `#lastText`), scanned together. */
  #unread = '';
  /** What the caller was sent, for the hooks. */
  #sent = '';
  #done = false;

  constructor(d: StreamGuardDeps) {
    this.#d = d;
    this.#scan = startOutputScan(d.policies, d.book);
    this.#hooks = activeChecks(d.policies, 'output').filter((a) => a.check.type === 'webhook');
  }

  push(ev: StreamEvent): StreamGuardStep {
    if (this.#done) return { events: [] };
    if (ev.type === 'text_delta' && this.#tail.length === 0) {
      const head = ev.index === this.#lastText ? { events: [] } : this.endRead();
      if (!this.#done) {
        this.#lastText = ev.index;
        this.#unread += ev.text;
      }
      return head;
    }
    const head = this.endRead();
    if (this.#done) return head;
    const step = this.#pushOne(ev);
    if (head.events.length === 0) return step;
    step.events.unshift(...head.events);
    return step;
  }

  endRead(): StreamGuardStep {
    if (this.#unread === '' || this.#done) return { events: [] };
    const text = this.#unread;
    this.#unread = '';
    return this.#text(this.#lastText, scanOutputDelta(this.#scan, text), []);
  }

  #pushOne(ev: StreamEvent): StreamGuardStep {
    if (this.#tail.length > 0 || (ev.type === 'stop' && this.#hooks.length > 0)) {
      this.#tail.push(ev);
      return { events: [] };
    }
    switch (ev.type) {
      case 'block_start':
        this.#kinds.set(ev.index, ev.block.type);
        return { events: [ev] };
      case 'text_delta':
        // Only after a stop held for the hooks: the tail branch above took it.
        return { events: [ev] };
      case 'tool_args_delta': {
        let st = this.#args.get(ev.index);
        if (!st) {
          st = { pending: '' };
          this.#args.set(ev.index, st);
        }
        const partialJson = restoreArgsDelta(st, this.#d.book, ev.partialJson);
        return { events: partialJson === '' ? [] : [{ ...ev, partialJson }] };
      }
      case 'block_stop':
        return this.#blockStop(ev);
      case 'stop':
        return this.#end([ev]);
      case 'error':
        // The upstream's own error record ends the answer: what was held back goes out before it.
        return { events: [...this.broken().events, ev] };
      default:
        return { events: [ev] };
    }
  }

  #blockStop(ev: Extract<StreamEvent, { type: 'block_stop' }>): StreamGuardStep {
    const st = this.#args.get(ev.index);
    if (st) {
      this.#args.delete(ev.index);
      const partialJson = restoreArgsDelta(st, this.#d.book, '', true);
      const events: StreamEvent[] =
        partialJson === '' ? [] : [{ type: 'tool_args_delta', index: ev.index, partialJson }];
      events.push(ev);
      return { events };
    }
    if (this.#kinds.get(ev.index) !== 'text') return { events: [ev] };
    return this.#text(ev.index, flushOutputBlock(this.#scan), [ev]);
  }

  #text(index: number, step: { text: string; blocked: unknown }, after: StreamEvent[]): StreamGuardStep {
    const events: StreamEvent[] = [];
    if (step.text !== '') {
      this.#sent += step.text;
      events.push({ type: 'text_delta', index, text: step.text });
    }
    if (step.blocked) return this.#end(events, true);
    events.push(...after);
    return { events };
  }

  /** The end-of-answer checks (late text checks; once a block was found, its record). */
  #end(events: StreamEvent[], blockedNow = false): StreamGuardStep {
    this.#done = true;
    const end = endOutputScan(this.#scan);
    const head: StreamEvent[] = [];
    if (end.text !== '' && this.#lastText >= 0 && !blockedNow) {
      this.#sent += end.text;
      head.push({ type: 'text_delta', index: this.#lastText, text: end.text });
    }
    const blocked = this.#scan.blocked;
    const error = this.#d.verdicts.add(end.verdicts, blocked, this.#d.ctx.model);
    return error ? { events: [...head, ...events], blocked: error } : { events: [...head, ...events] };
  }

  async finish(): Promise<StreamGuardStep> {
    // With a held stop nothing is unread: pushing the stop scanned what came before it.
    const head = this.endRead();
    if (this.#done) return head;
    if (this.#tail.length === 0) {
      const end = this.#end([]);
      end.events.unshift(...head.events);
      return end;
    }
    const step = this.#end([]);
    if (step.blocked) return step;
    const d = this.#d;
    const payload = { stage: 'output' as const, ...d.ctx, text: this.#sent };
    const outcome = await runHooks(this.#hooks, payload, d.callHook);
    // What was streamed cannot be replaced any more: a hook's mask is recorded, not applied.
    for (const v of outcome.verdicts) if (v.action === 'mask') v.applied = false;
    const error = d.verdicts.add(outcome.verdicts, outcome.blocked, d.ctx.model);
    if (error) return { events: step.events, blocked: error };
    return { events: [...step.events, ...this.#tail] };
  }

  /**
   * The held-back text is flushed through the same end-of-answer checks as a normal end (no more
   * text can complete a match, so what would be masked is masked, a block cuts before its match);
   * webhook checks are not asked, having no whole answer to judge.
   */
  broken(): StreamGuardStep {
    const head = this.endRead();
    if (this.#done) return { events: head.events };
    this.#tail.length = 0;
    const step = this.#end([]);
    return { events: [...head.events, ...step.events] };
  }

  atRest(res: ChatResponse): ChatResponse {
    return evaluateOutputChecks(this.#d.policies, res, this.#d.book, { restore: false }).value;
  }

  atRestText(text: string): string {
    const masking = activeChecks(this.#d.policies, 'output').filter((a) => a.enforce && a.check.action === 'mask');
    if (masking.length === 0) return text;
    return textPass(text, masking, new VerdictTally('output'), this.#d.book).text;
  }
}
