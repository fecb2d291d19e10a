// Shared by the stores that filter on user text: LIKE wildcards in that text are escaped with a
// backslash so that they match literally.
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
