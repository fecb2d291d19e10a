// How deeply a JSON text nests, found by one scan of the text before it is parsed. Bodies nested
// thousands of levels deep parse fine but overflow the stack of every recursive walk after that
// (JSON.stringify included), so they are refused up front.

/**
 * The deepest nesting accepted from outside (request bodies, batch input lines, files, upstream
 * bodies): real tool schemas nest a few dozen levels at most.
 */
export const MAX_JSON_DEPTH = 128;

/** The deepest nesting of `[`/`{` in `text`, counting only brackets outside strings; stops past `limit`. */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  // A text shorter than the limit cannot nest deeper than it.
  if (text.length <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}
