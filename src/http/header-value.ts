// Response header values that carry anything derived from input must still be valid header
// values: Node throws on characters outside Latin-1 and on control characters, which would turn
// an answer into a 500, or a stream into a hang. Such values are percent-encoded instead.

const UNSAFE = /[^\t\x20-\x7e\x80-\xff]/;

export function safeHeaders(headers: Record<string, string>): Record<string, string> {
  for (const k in headers) {
    const v = headers[k];
    if (UNSAFE.test(v)) headers[k] = encodeURIComponent(v);
  }
  return headers;
}
