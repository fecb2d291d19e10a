// The stores as one bundle, opened and migrated for whichever dialect the config selects.
import type { Config } from '../config.ts';
import { type AuditLogStore, createAuditLogStore } from './audit-log.ts';
import { type BatchStore, createBatchStore } from './batches.ts';
import { type BudgetStore, createBudgetStore } from './budgets.ts';
import { type CacheEntryStore, createCacheEntryStore } from './cache-entries.ts';
import { type ChangePublisher, NO_CHANGES } from './changes.ts';
import { type CredentialStore, createCredentialStore } from './credentials.ts';
import { type Db, type Dialect, openDb } from './db.ts';
import { createFileStore, type FileStore } from './files.ts';
import { createGuardrailStore, type GuardrailStore } from './guardrails.ts';
import { createJobStore, type JobStore } from './jobs.ts';
import { createMcpServerStore, type McpServerStore } from './mcp-servers.ts';
import { migrateToLatest } from './migrations/index.ts';
import { createModelSettingStore, type ModelSettingStore } from './model-settings.ts';
import { createOrgKeyStore, type OrgKeyStore } from './org-keys.ts';
import { createProjectStore, type ProjectStore } from './projects.ts';
import { createRequestLogStore, type RequestLogStore } from './request-logs.ts';
import { createResponseStore, type ResponseStore } from './responses.ts';
import { type AnalyticsStore, createAnalyticsStore } from './rollups-read.ts';
import { createRoutingConfigStore, type RoutingConfigStore } from './routing-configs.ts';
import { createUserStore, type UserStore } from './users.ts';
import { createWebhookDeliveryStore, type WebhookDeliveryStore } from './webhook-deliveries.ts';
import { createWebhookEndpointStore, type WebhookEndpointStore } from './webhook-endpoints.ts';

export interface Stores {
  orgKeys: OrgKeyStore;
  projects: ProjectStore;
  credentials: CredentialStore;
  logs: RequestLogStore;
  /** Analytics rollups, kept by `logs.insertMany` and the SQLite log worker. */
  analytics: AnalyticsStore;
  routingConfigs: RoutingConfigStore;
  /** The durable job queue (src/jobs/ runs it). */
  jobs: JobStore;
  webhookEndpoints: WebhookEndpointStore;
  /** Deliveries, their attempts and the domain events they carry. */
  webhookDeliveries: WebhookDeliveryStore;
  /** Semantic cache entries (what the in-process indexes are rebuilt from). */
  cacheEntries: CacheEntryStore;
  /** Budget definitions and the once-only record of their threshold alerts. */
  budgets: BudgetStore;
  /** Where every addressable file lives (gateway-held or upstream), by org and project. */
  files: FileStore;
  /** Batches of both families and their items. */
  batches: BatchStore;
  /** Stored responses: which upstream credential and project each response id belongs to. */
  responses: ResponseStore;
  /** Management writes, hash-chained per organization. */
  auditLog: AuditLogStore;
  /** People signed in through single sign-on, and their sessions. */
  users: UserStore;
  /** Guardrail policies (the live mirror keeps them in memory for the proxy). */
  guardrails: GuardrailStore;
  /** Model aliases and price overrides per organization (mirrored in memory for the proxy). */
  modelSettings: ModelSettingStore;
  /** MCP tool servers behind /mcp/v1, and the tool patterns of API keys. */
  mcpServers: McpServerStore;
}

export interface StoreHandle {
  db: Db;
  dialect: Dialect;
  where: string;
  stores: Stores;
  close(): Promise<void>;
}

/** `changes` hears of every committed write the proxy must see (keys, credentials, projects, configs, budgets). */
export function createStores(db: Db, changes: ChangePublisher = NO_CHANGES): Stores {
  return {
    orgKeys: createOrgKeyStore(db, changes),
    projects: createProjectStore(db, changes),
    credentials: createCredentialStore(db, changes),
    logs: createRequestLogStore(db),
    analytics: createAnalyticsStore(db),
    routingConfigs: createRoutingConfigStore(db, changes),
    jobs: createJobStore(db),
    webhookEndpoints: createWebhookEndpointStore(db),
    webhookDeliveries: createWebhookDeliveryStore(db),
    cacheEntries: createCacheEntryStore(db),
    budgets: createBudgetStore(db, changes),
    batches: createBatchStore(db),
    files: createFileStore(db),
    responses: createResponseStore(db),
    auditLog: createAuditLogStore(db),
    users: createUserStore(db),
    guardrails: createGuardrailStore(db, changes),
    modelSettings: createModelSettingStore(db, changes),
    mcpServers: createMcpServerStore(db),
  };
}

export interface OpenStoreOptions {
  /** Where writes publish their changes; without it nobody in this process is told (tests, migrate). */
  changes?: ChangePublisher;
}

/** Opens the database and brings the schema to the latest migration. */
export async function openStore(config: Config, opts: OpenStoreOptions = {}): Promise<StoreHandle> {
  const { db, dialect, where } = await openDb(config);
  try {
    await migrateToLatest(
      db as unknown as Parameters<typeof migrateToLatest>[0],
      dialect === 'postgres' && config.pgSchema !== null ? config.pgSchema : undefined,
    );
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return { db, dialect, where, stores: createStores(db, opts.changes), close: () => db.destroy() };
}

/** Unique-constraint violation on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
