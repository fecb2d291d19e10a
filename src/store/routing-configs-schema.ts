// Table shapes of the routing-config store, merged into the shared Database type with
// `db.withTables<RoutingConfigTables>()` so that the foundation's schema file stays untouched.
export type RoutingConfigsTable = {
  id: string;
  org_id: string;
  project_id: string | null;
  slug: string;
  current_version: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

export type RoutingConfigVersionsTable = {
  id: string;
  config_id: string;
  version: number;
  name: string;
  strategy: string;
  /** JSON text of the strategy's `config` object. */
  config: string;
  embedding_dimensions: number | null;
  /** Version this one was restored from, when created by a restore. */
  restored_from: number | null;
  created_at: string;
};

export type RoutingConfigTables = {
  routing_configs: RoutingConfigsTable;
  routing_config_versions: RoutingConfigVersionsTable;
};
