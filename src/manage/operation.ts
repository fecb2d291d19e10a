// The shape of one management operation, declared once and turned into a REST route, an OpenAPI
// operation and an MCP tool (DESIGN.md principle 4).
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Principal } from '../live/principals.ts';
import type { RequiredRole } from '../ports/roles.ts';
import type { Services } from './services.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface OperationInput {
  params?: TObject;
  query?: TObject;
  body?: TObject;
}

type StaticOr<T, Fallback> = T extends TSchema ? Static<T> : Fallback;

export interface OperationContext<I extends OperationInput> {
  svc: Services;
  principal: Principal;
  requestId: string;
  params: StaticOr<I['params'], Record<string, never>>;
  query: StaticOr<I['query'], Record<string, never>>;
  body: StaticOr<I['body'], Record<string, never>>;
}

/** What an operation is called and where it is served: the same in its spec and its erased form. */
interface OperationIdentity {
  /** Tool name from SPEC (also the OpenAPI operationId). */
  name: string;
  method: HttpMethod;
  /**
   * The least role the operation needs (ranks: admin > developer > viewer > inference; see
   * src/ports/roles.ts), checked before the handler on every door and published as x-required-role.
   */
  role: RequiredRole;
  /** OpenAPI-style template, e.g. `/manage/v1/projects/{project_id}`. */
  path: string;
  /** OpenAPI tag / resource group. */
  tag: string;
  summary: string;
  description?: string;
}

export interface OperationSpec<I extends OperationInput, O extends TSchema> extends OperationIdentity {
  /** HTTP status of a success (default 200). */
  status?: number;
  /** Error statuses specific to this operation, beyond the common 400/401/403/404. */
  errors?: number[];
  input: I;
  output: O;
  handler(ctx: OperationContext<I>): Promise<Static<O>>;
}

/** The type-erased form the generators iterate over. */
export interface Operation extends OperationIdentity {
  status: number;
  errors: number[];
  input: OperationInput;
  output: TSchema;
  handler(ctx: ErasedContext): Promise<unknown>;
}

export interface ErasedContext {
  svc: Services;
  principal: Principal;
  requestId: string;
  params: unknown;
  query: unknown;
  body: unknown;
}

/**
 * Declares an operation. Inputs are validated against `input` before the handler runs (by fastify
 * for REST, by the MCP layer for tools), which is what makes the narrowing cast below sound.
 */
export function defineOperation<I extends OperationInput, O extends TSchema>(spec: OperationSpec<I, O>): Operation {
  return {
    name: spec.name,
    method: spec.method,
    role: spec.role,
    path: spec.path,
    tag: spec.tag,
    summary: spec.summary,
    description: spec.description,
    status: spec.status ?? 200,
    errors: spec.errors ?? [],
    input: spec.input,
    output: spec.output,
    handler: (ctx: ErasedContext) => spec.handler(ctx as OperationContext<I>),
  };
}
