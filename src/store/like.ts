// LIKE on user text for the stores: the text's wildcards are escaped with a backslash, and the
// ESCAPE clause says so. PostgreSQL treats backslash as the escape by default, SQLite has no escape
// character unless told, so without the clause `_`, `%` or `\` in the text never matched on SQLite.
import { type RawBuilder, type SqlBool, sql } from 'kysely';

export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `column LIKE pattern ESCAPE '\'`; build `pattern` from escapeLike(text) plus your own wildcards. */
export function likeEscaped(column: string, pattern: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} like ${pattern} escape '\\'`;
}
