// Prefixed, lexically sortable ids. A monotonic factory keeps ids created in the same millisecond
// ordered, which cursor pagination (ordered by id) relies on.
import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

export type IdPrefix = 'req' | 'proj' | 'prov' | 'key' | 'org' | 'rc' | 'rcv' | 'whep' | 'whd' | 'batch' | 'msgbatch';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${next().toLowerCase()}`;
}
