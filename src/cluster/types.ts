// What the cluster adapters offer beyond the ports: a once-per-cluster claim. Budget threshold
// events must fire once across all instances; a claim is a cheap way for an instance to learn that
// another one already announced a mark (see LocalClaims and RedisCounters.claimOnce).

export interface OnceClaims {
  /** True for the first claim of `key` (in this process, or in the cluster) until `ttlMs` has passed. */
  claimOnce(key: string, ttlMs: number): Promise<boolean>;
}
