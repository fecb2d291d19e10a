// Response header values that carry anything derived from input must still be valid header
// values: Node throws on characters outside Latin-1 and on control characters, which would turn
// an answer into a 500, or a stream into a hang. Such values are percent-encoded instead.
// These maps are also where an upstream's headers could reach the caller, so the request-id names
// the gateway sets itself (request-id.ts) are dropped from them: the gateway's id always wins.

const UNSAFE = /[^\t\x20-\x7e\x80-\xff]/;

export function safeHeaders(headers: Record<string, string>): Record<string, string> {
  for (const k in headers) {
    const v = headers[k];
    if (isRequestIdName(k)) delete headers[k];
    else if (UNSAFE.test(v)) headers[k] = encodeURIComponent(v);
  }
  return headers;
}

/** `request-id`, `x-request-id` or `x-svc-request-id`, in any case. */
function isRequestIdName(name: string): boolean {
  // Cheap first test: almost every header name is shorter or does not end in "id".
  if (name.length < 10 || (name.charCodeAt(name.length - 1) | 32) !== 100) return false;
  const lower = name.toLowerCase();
  return lower === 'request-id' || lower === 'x-request-id' || lower === 'x-svc-request-id';
}
