// A credential's base URL overrides the vendor default (DESIGN.md section 7); a trailing slash would
// double up in paths.
export function baseUrlOr(baseUrl: string | null | undefined, fallback: string): string {
  return (baseUrl || fallback).replace(/\/+$/, '');
}
