// One header value out of a header map, as Node and undici hand it over (lower-cased names, a repeated
// header as an array) or as a caller or test writes it by hand (any case).

export type HttpHeaders = Record<string, string | string[] | undefined>;

/**
 * The first value of header `name`, names compared case-insensitively; undefined when absent.
 * Maps from Node and undici are lower-cased, so the direct look-up answers them; hand-written maps
 * fall back to a scan.
 *
 * @example headerValue({ 'retry-after': ['3', '4'] }, 'Retry-After') // '3'
 */
export function headerValue(headers: HttpHeaders, name: string): string | undefined {
  const want = name.toLowerCase();
  let value = headers[want];
  if (value === undefined) {
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() === want) {
        value = headers[key];
        break;
      }
    }
  }
  return Array.isArray(value) ? value[0] : value;
}
