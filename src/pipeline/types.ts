// The shapes that travel through the pipeline: what the HTTP layer hands in, the live state the
// pipeline reads, the route it takes, and the reply it hands back for the HTTP layer to write.
import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError } from '../errors/gateway-error.ts';
import type { FamilyCodec } from '../families/shared/codec.ts';
import type { SvcExtensions } from '../families/shared/svc.ts';
import type { SvcHeaders } from '../families/shared/svc-headers.ts';
import type { CallSignal } from '../ir/call-signal.ts';
import type { StreamRelay, StreamSummary } from '../ir/outcome.ts';
import type { ChatResponse, Usage } from '../ir/types.ts';
import type { ResolvedCredential } from '../live/credentials.ts';
import type { Principal } from '../live/principals.ts';
import type { TraceLink } from '../ports/trace-links.ts';
import type { ModelPrice } from '../providers/catalog/types.ts';
import type { VendorId } from '../providers/types.ts';
import type { HealthTracker } from '../routing/health.ts';
import type { AliasUse, ConfigRef, DryRunEnvelope } from '../routing/trace.ts';
import type { ActiveConfig, CandidateRef, Decision } from '../routing/types.ts';
import type { ChatCall, RoutedTarget } from './call.ts';

/** The in-memory state a proxy call reads; never the database. */
export interface LiveState {
  credentialById(orgId: string, id: string): ResolvedCredential | undefined;
  /** Every active credential of the org for the vendor; credential-pool.ts orders them per call. */
  credentialsFor(orgId: string, vendor: VendorId): readonly ResolvedCredential[];
  config(orgId: string, slug: string): ActiveConfig | undefined;
  /** Whether a project is soft-deleted (its configs no longer serve). */
  projectDeleted(projectId: string): boolean;
  /** The project's `list_models` setting: its keys see their callable models at GET /v1/models. */
  listsModels(projectId: string): boolean;
  health: HealthTracker;
  /** The model an org's alias stands for (`@slug` or `vendor/model`); undefined when the name is no alias. */
  modelAlias(orgId: string, name: string): string | undefined;
  /** The org's own rates for a model (a price override), to pass to computeCost; undefined for list prices. */
  priceOverride(orgId: string, vendor: VendorId, model: string): ModelPrice | undefined;
}

export type CallKind = 'chat' | 'embeddings' | 'count_tokens' | 'raw';

/** What the HTTP layer knows about a proxy call. */
export interface ProxyInput {
  codec: FamilyCodec;
  principal: Principal;
  requestId: string;
  body: unknown;
  /** The body as the caller sent it, logged instead of serializing `body` again. */
  rawBody?: string;
  headers: IncomingHttpHeaders;
  /** Aborted when the caller goes away. */
  signal: CallSignal;
  /** `POST /alpha/v1/dry-run`: always answer with the routing decision. */
  dryRun?: boolean;
  /** Set when the management API re-runs a logged request: the id of that request. */
  replayOf?: string;
  /**
   * Set when the call is an item of a batch the gateway runs: the batch is logged as a whole, so the
   * item's record goes to `onRecord` (its cost and usage add up to the batch's) and not to the log.
   */
  batchItem?: BatchItemRef;
}

export interface BatchItemRef {
  batchId: string;
  /** The batch's create call, which the item's own trace links to (null when tracing was off). */
  traceLink?: TraceLink;
  onRecord(record: CallRecord): void;
}

/** A proxy call once decoded: what hooks see. */
export interface ProxyCall extends ProxyInput {
  kind: CallKind;
  hdr: SvcHeaders;
  /** performance.now() at arrival. */
  started: number;
  /** Date.now() at arrival. */
  createdAt: number;
  modelRequested: string;
  /** Chat calls: the decoded request and its gateway extensions. */
  chat?: ChatCall;
  svc?: SvcExtensions;
  /** End-of-call work features added (lifecycle.ts `atCallEnd`); runs once, newest first. */
  endWork: EndWork[] | undefined;
  /** Work for when the call is held past its answer (lifecycle.ts `atHold`); runs once, if ever. */
  holdWork: HoldWork[] | undefined;
  /** Headers hooks add to the answer, success or refusal (x-ratelimit-*). */
  replyHeaders: Record<string, string> | undefined;
  /** What hooks decided about the call, merged into its decision trace (the limit that refused it). */
  hookTrace: Record<string, unknown> | undefined;
  /** Each feature's own state for this call, under its key (lifecycle.ts `callSlot`). */
  slots: Map<object, unknown> | undefined;
}

/** Work for the end of a call, with its record (undefined when the call ended without one). */
export type EndWork = (record: CallRecord | undefined) => void;

/** Work for a call answered but not ended, with its record as it stood when the answer went out. */
export type HoldWork = (record: CallRecord) => void;

/**
 * What features noted about a finished call, by feature name: each note's fields are columns of the
 * request log, which flattens them into its row. Shared and empty until a feature notes something.
 */
export type FeatureNotes = Record<string, Readonly<Record<string, unknown>>>;

export type RoutePlan = (
  | {
      kind: 'direct';
      target: RoutedTarget;
      /** The vendor's other credentials, in the order to fail over to (empty for BYOK). */
      alternates: readonly ResolvedCredential[];
      config: null;
    }
  | { kind: 'config'; cfg: ActiveConfig; config: ConfigRef; decision: Decision; envelope: DryRunEnvelope }
) & {
  /** Set when the caller named an org's model alias: the name and what it stood for (shown in the trace). */
  alias?: AliasUse;
};

/** A finished answer for the HTTP layer to write; `done()` runs the afterResponse hooks. */
export type PipelineReply =
  | {
      kind: 'json';
      status: number;
      headers: Record<string, string>;
      /** An object to serialize, or JSON text to send as it is. */
      body: unknown;
      done(): void;
    }
  | {
      kind: 'stream';
      headers: Record<string, string>;
      relay: StreamRelay;
      /** The family's error record, for a failure the writer itself detects. */
      errorRecord(e: GatewayError): string;
      /** Called with the relay's summary; returns the trailers to send and runs the hooks. */
      done(summary: StreamSummary): Record<string, string>;
    };

/** One finished attempt, for the candidate's health (`ref`), its credential's, or both. */
export interface HealthSample {
  ref?: CandidateRef;
  credentialId?: string;
  /** The credential's vendor where there is no `ref` (a routed attempt's tries), for per-vendor counts. */
  vendor?: CandidateRef['vendor'];
  ok: boolean;
  latencyMs: number;
  status: number;
  kind: string;
}

/** What the afterResponse hooks see of a finished call: one record per call, whatever its kind. */
export interface CallRecord {
  id: string;
  requestType: string;
  orgId: string;
  projectId: string | null;
  keyId: string;
  endUser: string | null;
  tags: Record<string, string>;
  traceId: string | null;
  conversationId: string | null;
  modelRequested: string;
  modelUsed: string | null;
  vendor: string | null;
  credentialId: string | null;
  status: number;
  latencyMs: number;
  ttfbMs: number | null;
  usage: Usage;
  costUsd: number;
  error: unknown;
  trace: unknown;
  requestBody: unknown;
  responseBody: unknown;
  createdAt: number;
  healthSamples: HealthSample[];
  /** Filled in by end-of-call work (which runs before the afterResponse hooks): see record.ts `noteFeature`. */
  features: FeatureNotes;
  /** The answer in IR form when a hook asked for it (`ChatCall.collectAnswer`). */
  answer: ChatResponse | null;
  replayOf: string | null;
  /** The batch the call was an item of (see ProxyInput.batchItem); such records are not logged. */
  batchId?: string;
  /** The family the call came in on, where its request type exists in both (the batch calls). */
  family?: 'alpha' | 'beta';
}
