// One ordering of strings for sorts that must not depend on the locale: code-unit order, which is
// creation order for our ULIDs and stable for object keys. `localeCompare` would also page in ICU's
// collation tables (~1.7 MB resident in a started gateway) for as long as the process lives.

/** Code-unit order, for `Array.prototype.sort`. */
export const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
