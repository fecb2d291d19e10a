// Turns the operation list into fastify routes with schema validation.
import type { FastifyInstance } from 'fastify';
import { runOperation } from '../manage/audit.ts';
import type { Operation } from '../manage/operation.ts';
import { requireOperationRole } from '../manage/roles.ts';

/** `/manage/v1/projects/{project_id}` -> `/manage/v1/projects/:project_id` */
export function toFastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

export function registerOperationRoutes(app: FastifyInstance, operations: readonly Operation[]): void {
  for (const op of operations) {
    const hasBody = op.input.body !== undefined;
    app.route({
      method: op.method,
      url: toFastifyPath(op.path),
      schema: {
        ...(op.input.params ? { params: op.input.params } : {}),
        ...(op.input.query ? { querystring: op.input.query } : {}),
        ...(hasBody ? { body: op.input.body } : {}),
      },
      // The role is checked before the input: a caller refused the operation learns that, not
      // what a valid body would have looked like. An empty POST to an operation whose fields are
      // all optional means "no fields", not "bad body".
      preValidation: async (request) => {
        requireOperationRole(op, request.principal);
        if (hasBody && (request.body === undefined || request.body === null)) request.body = {};
      },
      handler: async (request, reply) => {
        const ctx = {
          svc: app.svc,
          principal: request.principal,
          requestId: request.svcId,
          params: request.params ?? {},
          query: request.query ?? {},
          body: hasBody ? request.body : {},
        };
        const origin = { ip: request.ip, userAgent: request.headers['user-agent'] ?? null };
        const result = await runOperation(operations, op, ctx, origin);
        return reply.code(op.status).send(result);
      },
    });
  }
}
