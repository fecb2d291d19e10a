// What the proxy needs from the rest of the gateway, as a narrow interface so the proxy code does
// not depend on how stores and caches are built (embedded or scaled out).
import type { Credential, VendorId } from '../providers/types.ts';

export interface Principal {
  orgId: string;
  projectId: string | null;
  keyId: string;
}

export interface StoredCredential {
  id: string;
  vendor: VendorId;
  credential: Credential;
}

/** One request-log row as the proxy produces it (written behind the response, in batches). */
export interface ProxyLogRow {
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
  provider: string | null;
  credentialId: string | null;
  status: number;
  latencyMs: number;
  ttfbMs: number | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  costUsd: number;
  error: unknown;
  trace: unknown;
  requestBody: unknown;
  responseBody: unknown;
  createdAt: number;
}

export interface ProxyDeps {
  resolveCredential(orgId: string, vendor: VendorId): StoredCredential | undefined;
  /** Fire and forget; the writer batches. */
  log(row: ProxyLogRow): void;
  /** Whether the project keeps full request/response bodies in the log. */
  logBodies(projectId: string | null): boolean;
}
