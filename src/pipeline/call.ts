// The chat call as every attempt sees it, and the upstream target an attempt is sent to.
import type { FamilyCodec } from '../families/shared/codec.ts';
import type { ChatRequest } from '../ir/types.ts';
import type { Deadlines } from '../providers/http.ts';
import type { Credential, HttpRequestSpec, VendorId } from '../providers/types.ts';
import type { AnswerGuard } from './guard.ts';

export interface ChatCall {
  codec: FamilyCodec;
  ir: ChatRequest;
  /** The caller's parsed body, used for same-family pass-through. */
  body: Record<string, unknown>;
  /** The caller's JSON text of `body`, when it came over HTTP: pass-through sends it with only the model edited. */
  rawBody?: string;
  requestId: string;
  /** Unix seconds, for alpha `created`. */
  created: number;
  /** Alpha `stream_options.include_usage`. */
  includeUsage: boolean;
  /** `X-Svc-User-Id` overrides the body's `user`. */
  userOverride?: string;
  /** Upstream headers decided by the family (beta: anthropic-version / anthropic-beta). */
  upstreamHeaders?: Record<string, string>;
  /** Upstream deadlines of this call (the transport's defaults when unset). */
  deadlines?: Deadlines;
  /** Set by a beforeAttempt hook that needs the answer in IR form (to keep it), streams included. */
  collectAnswer?: boolean;
  /**
   * Set by a beforeRoute hook that follows each upstream attempt (tracing): called with the request
   * just before it is sent, once per attempt, and may add headers to it (`traceparent`).
   */
  onSend?: (target: RoutedTarget, spec: HttpRequestSpec) => void;
  /** Set by the guard stage when the answer is to be checked or restored (guard.ts). */
  guard?: AnswerGuard;
}

/** The upstream routing picked for one attempt (chat or embeddings); providers/types.ts `Target` is what an adapter sends to. */
export interface RoutedTarget {
  vendor: VendorId;
  vendorAsSent: string;
  /** Upstream model id. */
  model: string;
  credentialId?: string;
  credential: Credential;
}
