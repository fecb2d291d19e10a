// Every error code the gateway emits, once: its HTTP status, the alpha `error.type`, the beta
// `error.type` and a message template. Family codecs, the management API and the README's error
// table (checked by a drift test) all read this table, so a code cannot mean two things.

export interface ErrorSpec {
  status: number;
  alpha: string;
  beta: string;
  /** `{name}` placeholders are filled from the error's vars; a call site may pass a whole message. */
  message: string;
}

const invalid = (message: string): ErrorSpec => ({
  status: 400,
  alpha: 'invalid_request_error',
  beta: 'invalid_request_error',
  message,
});
const upstream = (status: number, message: string): ErrorSpec => ({
  status,
  alpha: 'api_error',
  beta: 'api_error',
  message,
});

export const ERROR_CODES = {
  // Request shape (400 unless the transport says otherwise).
  invalid_request: invalid('{message}'),
  invalid_parameter: invalid('{message}'),
  invalid_json: invalid('Malformed JSON in request body: {detail}'),
  empty_body: invalid('Request body is empty'),
  json_too_deep: invalid('Request body nests deeper than {limit} levels'),
  unsupported_content_type: invalid('Unsupported Content-Type: send the body as application/json'),
  invalid_content_length: invalid('Invalid content-length header'),
  invalid_url: invalid('The request URL is malformed'),
  path_too_long: {
    status: 414,
    alpha: 'invalid_request_error',
    beta: 'invalid_request_error',
    message: 'A path parameter is longer than 100 characters',
  },
  headers_too_large: {
    status: 431,
    alpha: 'invalid_request_error',
    beta: 'invalid_request_error',
    message: 'Request headers are larger than the server accepts (16 KB)',
  },
  malformed_request: invalid('Malformed HTTP request (content-length, transfer-encoding or request line)'),
  request_timeout: {
    status: 408,
    alpha: 'invalid_request_error',
    beta: 'invalid_request_error',
    message: 'The request was not received in time',
  },
  invalid_cursor: invalid('Invalid cursor: pass the next_cursor value of a previous page unchanged'),
  request_too_large: {
    status: 413,
    alpha: 'invalid_request_error',
    beta: 'request_too_large',
    message: 'Request body is larger than the {limit} MB limit',
  },
  file_quota_exceeded: {
    status: 413,
    alpha: 'invalid_request_error',
    beta: 'request_too_large',
    message:
      "This upload would take the project's gateway-held files past their {limit} MB quota; delete files to make room",
  },
  // Routing.
  unsupported_content: invalid('{message}'),
  invalid_tool_arguments: invalid('{message}'),
  unsupported_tool: invalid('{message}'),
  model_not_found: invalid('unknown model "{model}"; {accepted}'),
  invalid_model: invalid('model must be 1-256 printable ASCII characters, got "{model}"'),
  routing_config_not_found: {
    status: 404,
    alpha: 'not_found_error',
    beta: 'not_found_error',
    message: 'no routing config with slug "{slug}"',
  },
  routing_config_kind_mismatch: invalid('routing config "{slug}" serves {kind} requests, not {requested}'),
  provider_key_not_allowed: invalid(
    'X-Svc-Provider-Key is honoured only on direct model calls, not on "@<slug>" routing configs',
  ),
  provider_not_configured: invalid(
    'no provider credential for vendor "{vendor}": add one with POST /manage/v1/providers or send X-Svc-Provider-Key',
  ),
  // The message is written at the call site: it names the policy, the check and the entity types, never the text.
  guardrail_blocked: invalid('{message}'),
  stream_not_supported: invalid('the {strategy} strategy needs whole answers before choosing one; send stream: false'),
  no_embeddings_api: invalid('vendor {vendor} has no embeddings API'),
  dimension_conflict: invalid('dimensions {requested} conflicts with the {pinned} pinned by routing config "{slug}"'),
  no_eligible_candidate: {
    status: 503,
    alpha: 'api_error',
    beta: 'api_error',
    message: 'no candidate of the routing config could serve this request',
  },
  // Upstream outcomes.
  upstream_rejected: invalid('{message}'),
  upstream_error: upstream(502, '{message}'),
  upstream_timeout: upstream(504, '{message}'),
  upstream_overloaded: { status: 502, alpha: 'api_error', beta: 'overloaded_error', message: '{message}' },
  dimension_mismatch: upstream(502, 'upstream returned vectors of length {got}, expected {expected}'),
  json_schema_validation_failed: upstream(502, '{message}'),
  budget_exceeded: {
    status: 402,
    alpha: 'budget_exceeded',
    beta: 'permission_error',
    message: '{message}',
  },
  rate_limit_exceeded: {
    status: 429,
    alpha: 'rate_limit_error',
    beta: 'rate_limit_error',
    message: '{message}',
  },
  server_busy: {
    status: 503,
    alpha: 'api_error',
    beta: 'overloaded_error',
    message: 'Too many large requests in flight; retry after the retry-after header',
  },
  limits_unavailable: {
    status: 503,
    alpha: 'api_error',
    beta: 'overloaded_error',
    message:
      'Rate limits and budgets cannot be checked right now (Redis is unreachable); retry after the retry-after header',
  },
  shutting_down: {
    status: 503,
    alpha: 'api_error',
    beta: 'overloaded_error',
    message: 'The gateway is shutting down; retry on another instance',
  },
  client_closed: { status: 499, alpha: 'api_error', beta: 'api_error', message: 'client disconnected' },
  // Access.
  invalid_api_key: {
    status: 401,
    alpha: 'authentication_error',
    beta: 'authentication_error',
    message: 'Invalid API key',
  },
  api_key_expired: {
    status: 401,
    alpha: 'authentication_error',
    beta: 'authentication_error',
    message: "API key '{key_id}' has expired",
  },
  model_not_allowed: {
    status: 403,
    alpha: 'permission_error',
    beta: 'permission_error',
    message: "This API key may not call model '{model}'",
  },
  insufficient_scope: {
    status: 403,
    alpha: 'permission_error',
    beta: 'permission_error',
    message: 'This management operation needs an org-wide API key; this key is scoped to one project',
  },
  insufficient_role: {
    status: 403,
    alpha: 'permission_error',
    beta: 'permission_error',
    message: "This operation needs the '{needed}' role or higher; the caller's role is '{role}'",
  },
  session_ended: {
    status: 401,
    alpha: 'authentication_error',
    beta: 'authentication_error',
    message: 'The sign-in session has ended (signed out, expired, or the user was deactivated); sign in again',
  },
  csrf_token_invalid: {
    status: 403,
    alpha: 'permission_error',
    beta: 'permission_error',
    message: "A write made with a sign-in session must send the session's CSRF token in the x-csrf-token header",
  },
  project_out_of_scope: {
    status: 403,
    alpha: 'permission_error',
    beta: 'permission_error',
    message: "This key is scoped to project '{project}' and cannot read project '{requested}'",
  },
  // Management resources.
  not_found: { status: 404, alpha: 'not_found_error', beta: 'not_found_error', message: "No {what} with id '{id}'" },
  unknown_route: {
    status: 404,
    alpha: 'not_found_error',
    beta: 'not_found_error',
    message: 'Unknown route: {method} {path}',
  },
  slug_taken: {
    status: 409,
    alpha: 'conflict_error',
    beta: 'invalid_request_error',
    message: "slug '{slug}' is already used by a live routing config",
  },
  log_body_not_retained: {
    status: 409,
    alpha: 'conflict_error',
    beta: 'invalid_request_error',
    message:
      "The request body of {id} was not kept ({why}), so it cannot be replayed; bodies are kept while the project's settings.log_bodies is true, for SWITCHYARD_LOG_BODY_RETENTION_DAYS",
  },
  log_not_replayable: {
    status: 409,
    alpha: 'conflict_error',
    beta: 'invalid_request_error',
    message: 'Only chat completions and messages can be replayed; {id} is a {type} request',
  },
  managed_by_config: {
    status: 409,
    alpha: 'conflict_error',
    beta: 'invalid_request_error',
    message:
      "{what} '{id}' is managed by the configuration file (SWITCHYARD_CONFIG): change the file and re-apply it instead",
  },
  provider_in_use: {
    status: 409,
    alpha: 'conflict_error',
    beta: 'invalid_request_error',
    message: 'Provider is still referenced by routing config(s): {configs}',
  },
  provider_needed: {
    status: 409,
    alpha: 'conflict_error',
    beta: 'invalid_request_error',
    message:
      'This is the last {vendor} credential and live routing configs need it: {configs}. Add another credential first, or delete with ?force=true',
  },
  key_verification_failed: {
    status: 422,
    alpha: 'invalid_request_error',
    beta: 'invalid_request_error',
    message: '{message}',
  },
  provider_unreachable: {
    status: 502,
    alpha: 'api_error',
    beta: 'api_error',
    message: '{message}',
  },
  invalid_routing_config: invalid('{message}'),
  invalid_project: invalid("No active project with id '{id}'"),
  invalid_vendor: invalid("Unknown vendor '{vendor}'"),
  invalid_base_url: invalid('{message}'),
  missing_base_url: invalid("base_url is required for azure-openai (e.g. 'https://<resource>.openai.azure.com')"),
  invalid_api_key_format: invalid('api_key must be non-empty and have no surrounding whitespace'),
  invalid_webhook_url: invalid('{message}'),
  invalid_event_types: invalid('{message}'),
  invalid_budget: invalid('{message}'),
  webhook_endpoint_deleted: {
    status: 409,
    alpha: 'conflict_error',
    beta: 'invalid_request_error',
    message: "Webhook endpoint '{id}' was deleted; nothing new is sent to it",
  },
  // Faults.
  internal_error: {
    status: 500,
    alpha: 'api_error',
    beta: 'api_error',
    message: 'Internal server error',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function errorSpec(code: ErrorCode): ErrorSpec {
  return ERROR_CODES[code];
}

/** Fills `{name}` placeholders; an unknown placeholder stays visible rather than vanishing. */
export function renderMessage(template: string, vars: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

/** The README's error table (a drift test keeps the two equal). */
export function errorTableMarkdown(): string {
  const rows = Object.entries(ERROR_CODES).map(
    ([code, s]) => `| \`${code}\` | ${s.status} | \`${s.alpha}\` | \`${s.beta}\` |`,
  );
  return ['| code | status | alpha `error.type` | beta `error.type` |', '| --- | --- | --- | --- |', ...rows].join(
    '\n',
  );
}
