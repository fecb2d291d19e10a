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
  /** A JSON body that is not a model call (no `model` field required). */
  modelFree?: boolean;
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
  ...files(),
  ...batches(),
  ...responses(),
  ...media(),
];

function responses(): ProxyPathDoc[] {
  const base = '/alpha/v1/responses';
  const row = (method: ProxyPathDoc['method'], path: string, summary: string, extra: Partial<ProxyPathDoc> = {}) => ({
    method,
    path: `${base}${path}`,
    family: 'alpha' as const,
    summary,
    jsonBody: false,
    ...extra,
  });
  return [
    row(
      'POST',
      '',
      'Create a response (Responses API, passed through to openai or azure-openai); SSE when stream is true; background mode',
      {
        jsonBody: true,
        streams: true,
      },
    ),
    row('GET', '/{id}', 'A stored response (stream=true replays it as SSE; starting_after)', { streams: true }),
    row('DELETE', '/{id}', 'Delete a stored response'),
    row('POST', '/{id}/cancel', 'Cancel a background response'),
    row('GET', '/{id}/input_items', 'Input items of a response (limit, order, after, before)'),
  ];
}

function media(): ProxyPathDoc[] {
  return [
    {
      method: 'POST',
      path: '/alpha/v1/images/generations',
      family: 'alpha',
      summary:
        'Generate images (openai, azure-openai, together, fireworks); free-form body, model defaults to dall-e-2',
      jsonBody: true,
      modelFree: true,
    },
    {
      method: 'POST',
      path: '/alpha/v1/audio/speech',
      family: 'alpha',
      summary: 'Text to speech: the audio bytes, streamed with the upstream content type (audio/mpeg, audio/opus...)',
      jsonBody: true,
    },
    {
      method: 'POST',
      path: '/alpha/v1/audio/transcriptions',
      family: 'alpha',
      summary: 'Transcribe audio (multipart/form-data: file, model, other fields passed on)',
      jsonBody: false,
    },
    {
      method: 'POST',
      path: '/alpha/v1/audio/translations',
      family: 'alpha',
      summary: 'Translate audio into English (multipart/form-data: file, model, other fields passed on)',
      jsonBody: false,
    },
  ];
}

function files(): ProxyPathDoc[] {
  const row = (method: ProxyPathDoc['method'], path: string, summary: string): ProxyPathDoc => ({
    method,
    path: `/alpha/v1/files${path}`,
    family: 'alpha',
    summary,
    jsonBody: false,
  });
  return [
    row('POST', '', 'Upload a file (multipart/form-data: file, purpose); X-Svc-Provider picks where it is kept'),
    row('GET', '', 'List files (purpose, limit, order, after)'),
    row('GET', '/{id}', 'A file object'),
    row('DELETE', '/{id}', 'Delete a file'),
    row('GET', '/{id}/content', 'The bytes of a file, streamed'),
  ];
}

function batches(): ProxyPathDoc[] {
  const alpha = '/alpha/v1/batches';
  const beta = '/beta/v1/messages/batches';
  return [
    {
      method: 'POST',
      path: alpha,
      family: 'alpha',
      summary: 'Create a batch from an input file',
      jsonBody: true,
      modelFree: true,
    },
    { method: 'GET', path: alpha, family: 'alpha', summary: 'List batches (limit, after)', jsonBody: false },
    { method: 'GET', path: `${alpha}/{id}`, family: 'alpha', summary: 'A batch object', jsonBody: false },
    { method: 'POST', path: `${alpha}/{id}/cancel`, family: 'alpha', summary: 'Cancel a batch', jsonBody: false },
    { method: 'POST', path: beta, family: 'beta', summary: 'Create a message batch', jsonBody: true, modelFree: true },
    {
      method: 'GET',
      path: beta,
      family: 'beta',
      summary: 'List message batches (limit, after_id, before_id)',
      jsonBody: false,
    },
    { method: 'GET', path: `${beta}/{id}`, family: 'beta', summary: 'A message batch', jsonBody: false },
    {
      method: 'GET',
      path: `${beta}/{id}/results`,
      family: 'beta',
      summary: 'Results as JSONL, streamed',
      jsonBody: false,
    },
    { method: 'POST', path: `${beta}/{id}/cancel`, family: 'beta', summary: 'Cancel a message batch', jsonBody: false },
    {
      method: 'DELETE',
      path: `${beta}/{id}`,
      family: 'beta',
      summary: 'Delete an ended message batch',
      jsonBody: false,
    },
  ];
}
