// The `guardrail.blocked` webhook event. The engine integration calls `blocked()` when an enforce
// policy refuses a call or ends its stream; the event goes to the outbox and the webhooks feature
// delivers it like any other. It names the policy, the check and the entity types with their
// counts, never the matched text: receivers are often less guarded than the gateway.
//
// Recording is fire-and-forget: the refusal has already been decided, and a slow or failing
// database must not hold up or fail the caller's 400.
import type { Logger } from 'pino';
import type { DomainEvent } from '../ports/domain-events.ts';
import type { Db } from '../store/db.ts';
import { recordEvents } from '../store/outbox.ts';

export interface GuardrailBlock {
  orgId: string;
  requestId: string;
  projectId: string | null;
  apiKeyId: string | null;
  model: string;
  policyId: string;
  policyName: string;
  /** The check's type (`pii`, `regex`, ...). */
  check: string;
  /** Its position in the policy's checks, which tells two checks of one type apart. */
  checkIndex: number;
  stage: 'input' | 'output';
  /** Entity type (or check-specific label) to how many matches; empty for limits and hooks. */
  entities: Readonly<Record<string, number>>;
  /** The refused call's traceparent when tracing is on: the deliveries' traces link to it. */
  traceLink?: string | null;
}

/** The domain event for one block. */
export function guardrailBlockedEvent(b: GuardrailBlock): DomainEvent {
  return {
    orgId: b.orgId,
    type: 'guardrail.blocked',
    data: {
      request_id: b.requestId,
      project_id: b.projectId,
      api_key_id: b.apiKeyId,
      model: b.model,
      policy_id: b.policyId,
      policy_name: b.policyName,
      check: b.check,
      check_index: b.checkIndex,
      stage: b.stage,
      entities: { ...b.entities },
    },
    traceLink: b.traceLink ?? null,
  };
}

export class GuardrailEvents {
  readonly #db: Db;
  readonly #logger: Logger;

  constructor(db: Db, logger: Logger) {
    this.#db = db;
    this.#logger = logger;
  }

  /** Records `guardrail.blocked`; never throws and never makes the caller wait. */
  blocked(b: GuardrailBlock): void {
    recordEvents(this.#db, [guardrailBlockedEvent(b)]).catch((err: unknown) =>
      this.#logger.warn({ err, policy: b.policyId, request: b.requestId }, 'could not record guardrail.blocked'),
    );
  }

  /** Records and waits (tests, and callers that want the event id). */
  async record(b: GuardrailBlock): Promise<string[]> {
    return recordEvents(this.#db, [guardrailBlockedEvent(b)]);
  }
}
