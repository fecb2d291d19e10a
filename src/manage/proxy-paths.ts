// The proxy endpoints listed in /openapi.yaml next to the management operations. Families append
// rows here as their endpoints land; the drift test then requires openapi.yaml to be regenerated.
export interface ProxyPathDoc {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  family: 'alpha' | 'beta';
  summary: string;
  /** True when the endpoint takes a JSON body (free-form here; SPEC mirrors the upstream shapes). */
  jsonBody: boolean;
  /** True when `stream: true` answers with text/event-stream. */
  streams?: boolean;
}

export const PROXY_PATHS: ProxyPathDoc[] = [
  {
    method: 'POST',
    path: '/alpha/v1/chat/completions',
    family: 'alpha',
    summary: 'Chat completion (chat-completions wire); SSE when stream is true',
    jsonBody: true,
    streams: true,
  },
  { method: 'POST', path: '/alpha/v1/embeddings', family: 'alpha', summary: 'Embeddings', jsonBody: true },
  { method: 'GET', path: '/alpha/v1/models', family: 'alpha', summary: 'Model list (always empty)', jsonBody: false },
  {
    method: 'POST',
    path: '/alpha/v1/dry-run',
    family: 'alpha',
    summary: 'Routing decision for a chat request (no upstream call)',
    jsonBody: true,
  },
  {
    method: 'POST',
    path: '/beta/v1/messages',
    family: 'beta',
    summary: 'Messages (content-block wire); SSE when stream is true',
    jsonBody: true,
    streams: true,
  },
  {
    method: 'POST',
    path: '/beta/v1/messages/count_tokens',
    family: 'beta',
    summary: 'Count input tokens of a messages request',
    jsonBody: true,
  },
  { method: 'GET', path: '/beta/v1/models', family: 'beta', summary: 'Model list (always empty)', jsonBody: false },
];
