// The single list of management operations (DESIGN.md principle 4). REST routes, /openapi.yaml and
// the MCP tools are all generated from it. Adding a resource: one file + one line here.

import { decisionOperations } from './analytics-decisions.ts';
import { analyticsReportOperations } from './analytics-report.ts';
import { apiKeyOperations } from './api-keys.ts';
import { auditLogOperations } from './audit-logs.ts';
import { budgetOperations } from './budgets.ts';
import { cacheOperations } from './cache.ts';
import { guardrailOperations } from './guardrails.ts';
import { logOperations } from './logs.ts';
import { mcpServerOperations } from './mcp-servers.ts';
import { modelOperations } from './models.ts';
import type { Operation } from './operation.ts';
import { projectOperations } from './projects.ts';
import { providerOperations } from './providers.ts';
import { routingConfigOperations } from './routing-configs.ts';
import { userOperations } from './users.ts';
import { webhookDeliveryOperations } from './webhook-deliveries.ts';
import { webhookEndpointOperations } from './webhook-endpoints.ts';

export const OPERATIONS: readonly Operation[] = [
  ...projectOperations,
  ...providerOperations,
  ...apiKeyOperations,
  ...routingConfigOperations,
  ...analyticsReportOperations,
  ...decisionOperations,
  ...logOperations,
  ...webhookEndpointOperations,
  ...webhookDeliveryOperations,
  ...budgetOperations,
  ...cacheOperations,
  ...guardrailOperations,
  ...auditLogOperations,
  ...userOperations,
  ...mcpServerOperations,
  ...modelOperations,
];
