// What a call's verdicts become outside the engine: the `x-svc-guardrails` header, the decision
// trace entry, the /metrics counter, the `guardrail.blocked` event and the 400. One place, so the
// chat, stream and bare-text paths report the same way.
import { GatewayError } from '../errors/gateway-error.ts';
import { atCallEnd } from '../pipeline/lifecycle.ts';
import { noteFeature } from '../pipeline/record.ts';
import type { ProxyCall } from '../pipeline/types.ts';
import { blockMessage, type GuardrailVerdict } from './engine.ts';
import { logAction } from './log-action.ts';
import type { GuardrailRuntime } from './runtime.ts';

/** One verdict in the header: `input:<policy id>:<check>:<action>` then `;entity=n` counts, `;shadow`. */
function headerEntry(v: GuardrailVerdict): string {
  let s = `${v.stage}:${v.policy_id}:${v.check_type}:${v.action}`;
  for (const [k, n] of Object.entries(v.counts)) if (k !== '') s += `;${k}=${n}`;
  if (v.mode === 'shadow') s += ';shadow';
  else if (!v.applied) s += ';not_applied';
  return s;
}

/** The header value for a call's verdicts so far; undefined when none fired. */
export function verdictHeader(verdicts: readonly GuardrailVerdict[]): string | undefined {
  return verdicts.length === 0 ? undefined : verdicts.map(headerEntry).join(', ');
}

/** The verdicts of one call, as they accumulate over its stages. */
export class CallVerdicts {
  /** Shared with the call's decision trace (`guardrails`), which the log row stores. */
  readonly list: GuardrailVerdict[] = [];

  constructor(
    private readonly rt: GuardrailRuntime,
    private readonly call: ProxyCall,
  ) {
    // The record is built when the call ends, so verdicts added later (a stream's output) are in it.
    call.hookTrace = { ...call.hookTrace, guardrails: this.list };
    atCallEnd(call, (record) => {
      const action = logAction(this.list);
      if (record !== undefined && action !== null) noteFeature(record, 'guardrails', { guardrailAction: action });
    });
  }

  /** Records verdicts (metrics included); returns the 400 for an enforcing block, which it also reports. */
  add(verdicts: readonly GuardrailVerdict[], blocked: GuardrailVerdict | null, model: string): GatewayError | null {
    for (const v of verdicts) {
      this.list.push(v);
      this.rt.countVerdict(v.policy_id, v.check_type, v.action);
    }
    if (!blocked) return null;
    const call = this.call;
    this.rt.events.blocked({
      orgId: call.principal.orgId,
      requestId: call.requestId,
      projectId: call.principal.projectId,
      apiKeyId: call.principal.keyId,
      model,
      policyId: blocked.policy_id,
      policyName: blocked.policy_name,
      check: blocked.check_type,
      checkIndex: blocked.check_index,
      stage: blocked.stage,
      entities: Object.fromEntries(Object.entries(blocked.counts).filter(([k]) => k !== '')),
      traceLink: call.replyHeaders?.traceparent,
    });
    return new GatewayError('guardrail_blocked', { message: blockMessage(blocked) });
  }

  header(): string | undefined {
    return verdictHeader(this.list);
  }
}
