// The proxy endpoints, listed once: the http layer registers every route from this list (by its
// group and route name) and /openapi.yaml documents the same rows next to the management
// operations. A new endpoint is a row here plus its handler; test/proxy/route-table.test.ts fails
// when the served routes and this list disagree, and the openapi drift test asks for a regeneration.

/** The route names of each group: the http layer's handlers for a group are keyed by them. */
export interface ProxyRouteNames {
  /** Model calls through the pipeline, and the model lists. */
  calls: 'chat' | 'dry_run' | 'embeddings' | 'alpha_models' | 'messages' | 'count_tokens' | 'beta_models';
  files: 'upload' | 'list' | 'retrieve' | 'delete' | 'content';
  batches:
    | 'alpha_create'
    | 'alpha_list'
    | 'alpha_retrieve'
    | 'alpha_cancel'
    | 'beta_create'
    | 'beta_list'
    | 'beta_retrieve'
    | 'beta_results'
    | 'beta_cancel'
    | 'beta_delete';
  responses: 'create' | 'retrieve' | 'delete' | 'cancel' | 'input_items';
  media: 'images' | 'speech' | 'transcriptions' | 'translations';
}

export type ProxyGroup = keyof ProxyRouteNames;

interface PathDoc {
  method: 'GET' | 'POST' | 'DELETE';
  /** OpenAPI form: path parameters as `{id}` (the only parameter name proxy paths use). */
  path: string;
  family: 'alpha' | 'beta';
  summary: string;
  /**
   * The endpoint takes a JSON body (free-form here; SPEC mirrors the upstream shapes). The body is
   * required: a call without one is refused as `empty_body` before its handler runs.
   */
  jsonBody: boolean;
  /** True when `stream: true` answers with text/event-stream. */
  streams?: boolean;
  /** A JSON body that is not a model call (no `model` field required). */
  modelFree?: boolean;
}

export type ProxyPathDoc = { [G in ProxyGroup]: PathDoc & { group: G; route: ProxyRouteNames[G] } }[ProxyGroup];

export const PROXY_PATHS: readonly ProxyPathDoc[] = [
  {
    group: 'calls',
    route: 'chat',
    method: 'POST',
    path: '/alpha/v1/chat/completions',
    family: 'alpha',
    summary: 'Chat completion (chat-completions wire); SSE when stream is true',
    jsonBody: true,
    streams: true,
  },
  {
    group: 'calls',
    route: 'embeddings',
    method: 'POST',
    path: '/alpha/v1/embeddings',
    family: 'alpha',
    summary: 'Embeddings',
    jsonBody: true,
  },
  {
    group: 'calls',
    route: 'alpha_models',
    method: 'GET',
    path: '/alpha/v1/models',
    family: 'alpha',
    summary: 'Model list (empty unless the project sets list_models)',
    jsonBody: false,
  },
  {
    group: 'calls',
    route: 'dry_run',
    method: 'POST',
    path: '/alpha/v1/dry-run',
    family: 'alpha',
    summary: 'Routing decision for a chat request (no upstream call)',
    jsonBody: true,
  },
  {
    group: 'calls',
    route: 'messages',
    method: 'POST',
    path: '/beta/v1/messages',
    family: 'beta',
    summary: 'Messages (content-block wire); SSE when stream is true',
    jsonBody: true,
    streams: true,
  },
  {
    group: 'calls',
    route: 'count_tokens',
    method: 'POST',
    path: '/beta/v1/messages/count_tokens',
    family: 'beta',
    summary: 'Count input tokens of a messages request',
    jsonBody: true,
  },
  {
    group: 'calls',
    route: 'beta_models',
    method: 'GET',
    path: '/beta/v1/models',
    family: 'beta',
    summary: 'Model list (empty unless the project sets list_models)',
    jsonBody: false,
  },
  ...files(),
  ...batches(),
  ...responses(),
  ...media(),
];

/** A row builder of one group: paths under `prefix`, the alpha family and no JSON body unless said. */
function rowOf<G extends ProxyGroup>(group: G, prefix: string) {
  return (
    route: ProxyRouteNames[G],
    method: PathDoc['method'],
    path: string,
    summary: string,
    extra: Partial<PathDoc> = {},
  ): ProxyPathDoc =>
    // The mapped union cannot be narrowed by a generic group; `route` is typed by the same G.
    ({
      group,
      route,
      method,
      path: `${prefix}${path}`,
      family: 'alpha',
      summary,
      jsonBody: false,
      ...extra,
    }) as ProxyPathDoc;
}

function responses(): ProxyPathDoc[] {
  const row = rowOf('responses', '/alpha/v1/responses');
  return [
    row(
      'create',
      'POST',
      '',
      'Create a response (Responses API, passed through to openai or azure-openai); SSE when stream is true; background mode',
      { jsonBody: true, streams: true },
    ),
    row('retrieve', 'GET', '/{id}', 'A stored response (stream=true replays it as SSE; starting_after)', {
      streams: true,
    }),
    row('delete', 'DELETE', '/{id}', 'Delete a stored response'),
    row('cancel', 'POST', '/{id}/cancel', 'Cancel a background response'),
    row('input_items', 'GET', '/{id}/input_items', 'Input items of a response (limit, order, after, before)'),
  ];
}

function media(): ProxyPathDoc[] {
  const row = rowOf('media', '/alpha/v1');
  const multipart = { jsonBody: false };
  const json = { jsonBody: true };
  return [
    row(
      'images',
      'POST',
      '/images/generations',
      'Generate images (openai, azure-openai, together, fireworks); free-form body, model defaults to dall-e-2',
      { ...json, modelFree: true },
    ),
    row(
      'speech',
      'POST',
      '/audio/speech',
      'Text to speech: the audio bytes, streamed with the upstream content type (audio/mpeg, audio/opus...)',
      json,
    ),
    row(
      'transcriptions',
      'POST',
      '/audio/transcriptions',
      'Transcribe audio (multipart/form-data: file, model, other fields passed on)',
      multipart,
    ),
    row(
      'translations',
      'POST',
      '/audio/translations',
      'Translate audio into English (multipart/form-data: file, model, other fields passed on)',
      multipart,
    ),
  ];
}

function files(): ProxyPathDoc[] {
  const row = rowOf('files', '/alpha/v1/files');
  return [
    row(
      'upload',
      'POST',
      '',
      'Upload a file (multipart/form-data: file, purpose); X-Svc-Provider picks where it is kept',
    ),
    row('list', 'GET', '', 'List files (purpose, limit, order, after)'),
    row('retrieve', 'GET', '/{id}', 'A file object'),
    row('delete', 'DELETE', '/{id}', 'Delete a file'),
    row('content', 'GET', '/{id}/content', 'The bytes of a file, streamed'),
  ];
}

function batches(): ProxyPathDoc[] {
  const alpha = '/alpha/v1/batches';
  const beta = '/beta/v1/messages/batches';
  const rowOfFamily = rowOf('batches', '');
  const row = (...[route, method, path, summary, extra]: Parameters<typeof rowOfFamily>): ProxyPathDoc =>
    rowOfFamily(route, method, path, summary, { family: path.startsWith('/beta/') ? 'beta' : 'alpha', ...extra });
  const creates = { jsonBody: true, modelFree: true };
  return [
    row('alpha_create', 'POST', alpha, 'Create a batch from an input file', creates),
    row('alpha_list', 'GET', alpha, 'List batches (limit, after)'),
    row('alpha_retrieve', 'GET', `${alpha}/{id}`, 'A batch object'),
    row('alpha_cancel', 'POST', `${alpha}/{id}/cancel`, 'Cancel a batch'),
    row('beta_create', 'POST', beta, 'Create a message batch', creates),
    row('beta_list', 'GET', beta, 'List message batches (limit, after_id, before_id)'),
    row('beta_retrieve', 'GET', `${beta}/{id}`, 'A message batch'),
    row('beta_results', 'GET', `${beta}/{id}/results`, 'Results as JSONL, streamed'),
    row('beta_cancel', 'POST', `${beta}/{id}/cancel`, 'Cancel a message batch'),
    row('beta_delete', 'DELETE', `${beta}/{id}`, 'Delete an ended message batch'),
  ];
}
