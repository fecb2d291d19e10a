// Table shapes of the analytics rollups (migrations 040, 130 and 140), merged into the shared Database
// type with `db.withTables<RollupTables>()`. `grain` is the period length in seconds (3600 or 86400) and
// `period_start` its start in Unix seconds; '' stands for "none" in the text key columns because
// a primary key cannot hold NULL.
export type RollupKeyColumns = {
  org_id: string;
  grain: number;
  period_start: number;
  project_id: string;
  /** The log row's request_type; '' for rows rolled up before migration 130 kept it. */
  request_type: string;
  model: string;
  provider: string;
};

export type RollupMetricColumns = {
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  /** Latency histogram: `bin:count` pairs (rollups-histogram.ts). */
  hist: string;
};

export type RollupsTable = RollupKeyColumns &
  RollupMetricColumns & {
    /** Status code / 100 (2 = 2xx ...). */
    status_class: number;
  };

export type TagsTable = RollupKeyColumns &
  RollupMetricColumns & {
    /** Canonical JSON of the row's tags (keys sorted), `other` past the bound. */
    tagset: string;
  };

export type UsersTable = Omit<RollupKeyColumns, 'model' | 'provider'> &
  RollupMetricColumns & {
    /** `other` past the bound. */
    end_user: string;
    /** As in TagsTable, '' for none. */
    tagset: string;
  };

export type DimValuesTable = {
  org_id: string;
  /** '' for the rows of org-wide keys (migration 140: the bounds are per project). */
  project_id: string;
  /** Unix day (seconds / 86400). */
  day: number;
  dim: string;
  value: string;
};

export type DimSlotsTable = {
  org_id: string;
  project_id: string;
  day: number;
  dim: string;
  /** How many values of `dim` were admitted for the project on `day`. */
  used: number;
};

export type RollupTables = {
  analytics_rollups: RollupsTable;
  analytics_tags: TagsTable;
  analytics_users: UsersTable;
  analytics_dim_values: DimValuesTable;
  analytics_dim_slots: DimSlotsTable;
};
