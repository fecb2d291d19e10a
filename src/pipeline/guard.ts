// What the guard stage (hooks.ts `GuardStage`) leaves on a call: on chat the answer's checks, on a
// pass-through call the masks of its body (raw-call.ts BODY_MASK). The pipeline knows only these
// shapes; the guardrails feature implements them. A gateway without the feature, or an org without
// policies, pays one undefined check per call.
import type { GatewayError } from '../errors/gateway-error.ts';
import type { ChatResponse, StreamEvent } from '../ir/types.ts';

/** A whole answer as the caller gets it and as it may be kept at rest (log row, stored answers). */
export interface GuardedAnswer {
  value: ChatResponse;
  atRest: ChatResponse;
}

/** Per call, set by the stage when the answer needs it. */
export interface AnswerGuard {
  /**
   * The caller's bytes may not travel as they are (something was masked) or the answer must be
   * checked: the attempt takes the translated path even for a same-family upstream.
   */
  readonly translate: boolean;
  /** A whole answer; a GatewayError refuses it. */
  checkAnswer(res: ChatResponse): Promise<GuardedAnswer | GatewayError>;
  /** The checks of one streamed answer. */
  openStream(): StreamGuard;
  /** The `x-svc-guardrails` summary of what was decided so far; undefined when nothing fired. */
  header(): string | undefined;
}

export interface StreamGuardStep {
  events: StreamEvent[];
  /** Send `events`, then end the stream with the family's error record for this error. */
  blocked?: GatewayError;
}

export interface StreamGuard {
  /** May hold text deltas back until `endRead`, so one upstream read is checked once. */
  push(ev: StreamEvent): StreamGuardStep;
  /** The events of one upstream read are all pushed: what is safe of the text so far goes out. */
  endRead(): StreamGuardStep;
  /** After the upstream's last event: what was held back (the stop) and the end-of-answer checks. */
  finish(): Promise<StreamGuardStep>;
  /**
   * The upstream broke off mid-answer: what was held back, checked as the end of the answer, and
   * the verdicts reached so far recorded. Its events go out before the family's error record; a
   * `blocked` here is recorded only, since the stream ends in an error anyway.
   */
  broken(): StreamGuardStep;
  /** The copy of the assembled answer to keep at rest, and its text. */
  atRest(res: ChatResponse): ChatResponse;
  atRestText(text: string): string;
}

/**
 * A whole answer replayed as a stream (an answer a beforeAttempt hook served) through the call's guard: the events to encode,
 * and the refusal to end with when the guard refused. Without a guard, the events as they are.
 */
export async function guardedReplay(guard: AnswerGuard | undefined, events: StreamEvent[]): Promise<StreamGuardStep> {
  if (!guard) return { events };
  const g = guard.openStream();
  const out: StreamEvent[] = [];
  for (const ev of events) {
    const step = g.push(ev);
    out.push(...step.events);
    if (step.blocked) return { events: out, blocked: step.blocked };
  }
  const end = await g.finish();
  out.push(...end.events);
  return end.blocked ? { events: out, blocked: end.blocked } : { events: out };
}

/** The placeholders a `restore: true` check masked, to put back into what the caller reads. */
export interface PlaceholderRestore {
  /** `text` with each such placeholder replaced by its original, JSON-escaped when `inJson`. */
  text(text: string, inJson: boolean): string;
  /** How many characters at the end of `text` may be a placeholder still arriving. */
  hold(text: string): number;
}

/** What the input checks masked on a pass-through call: left by the guard stage, read by raw-call.ts. */
export interface BodyMask {
  /** A JSON text of the request with every masked value replaced by its placeholder. */
  body(json: string): string;
  /** Undefined when no masked value is to be restored. */
  restore: PlaceholderRestore | undefined;
}
