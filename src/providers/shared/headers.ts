// Family headers arrive in whatever case the caller wrote them; the vendor wires compare names
// lower-cased, so a caller's `Anthropic-Beta` still replaces the default rather than doubling it.
export function lowerKeys(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v;
  return out;
}
