// Change events: how a committed write reaches every in-memory mirror. Stores publish after each
// write that changes what the proxy sees; live mirrors subscribe and reload the one entity named.
// An event carries no data, only what changed: subscribers always read the committed row, so an
// event that arrives twice or late is harmless. Implementations: cluster/local (one process) and,
// in scale-out mode, one that also fans out to the other instances.

export type ChangeTopic =
  | 'api_key'
  | 'credential'
  | 'project'
  | 'routing_config'
  | 'budget'
  | 'webhook_endpoint'
  | 'cache_entry'
  | 'guardrail'
  | 'model_setting';

export interface ChangeEvent {
  topic: ChangeTopic;
  /** Id of the changed entity (key_, prov_, proj_, rc_, budget_). */
  id: string;
  orgId: string;
}

export interface ChangeBus {
  /** Resolves once every subscriber in this process has applied the change. */
  publish(ev: ChangeEvent): Promise<void>;
  subscribe(topic: ChangeTopic, handler: (ev: ChangeEvent) => void | Promise<void>): () => void;
  /**
   * Calls `handler` each time the bus starts hearing other instances' changes: its first
   * subscription, and each one after a lost connection. What they published before it could hear
   * them never arrives, so a subscriber re-reads what changed. Never called by a bus that hears only
   * this process (or only its own machine's workers, whose relay has no gap to repair).
   */
  onResume(handler: () => void): () => void;
  close(): Promise<void>;
}
