// People who signed in through single sign-on (issue 33, item 4). Users are created by their first
// sign-in, never through this API; an admin reads them, changes a role, or deactivates one, which
// ends the user's sessions (the store ends them in the same transaction, and every instance's
// session lookup sees it within a second). Writes are audited by runOperation like any other.
import { type Static, Type } from '@sinclair/typebox';
import { GatewayError } from '../errors/gateway-error.ts';
import type { UserRecord } from '../store/users.ts';
import { notFound } from './access.ts';
import { pageAfter } from './cursor.ts';
import { defineOperation, type Operation } from './operation.ts';
import { ROLES } from './roles.ts';
import { Nullable, PageQuery, pageOf, Timestamp } from './schemas.ts';

const TAG = 'users';
const RoleSchema = Type.Union(
  ROLES.map((r) => Type.Literal(r)),
  { description: 'admin, developer, viewer or inference' },
);

export const User = Type.Object({
  object: Type.Literal('user'),
  id: Type.String(),
  email: Nullable(Type.String()),
  name: Nullable(Type.String()),
  role: RoleSchema,
  role_source: Type.Union([Type.Literal('claims'), Type.Literal('admin')], {
    description: "'claims': mapped from the identity provider at each sign-in; 'admin': set here, kept across sign-ins",
  }),
  project_id: Nullable(Type.String({ description: 'The project the user is bound to (from the project claim)' })),
  active: Type.Boolean({ description: 'False once deactivated: every session ended, sign-in refused' }),
  issuer: Type.String({ description: "The identity provider's issuer" }),
  subject: Type.String({ description: "The provider's stable id for the person (sub)" }),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_sign_in_at: Nullable(Timestamp),
});

export function userView(u: UserRecord): Static<typeof User> {
  return {
    object: 'user',
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    role_source: u.roleSetByAdmin ? 'admin' : 'claims',
    project_id: u.projectId,
    active: u.active,
    issuer: u.issuer,
    subject: u.subject,
    created_at: u.createdAt,
    updated_at: u.updatedAt,
    last_sign_in_at: u.lastSignInAt,
  };
}

const UserIdParams = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 100 }) });

const listUsers = defineOperation({
  name: 'list_users',
  method: 'GET',
  role: 'admin',
  path: '/manage/v1/users',
  tag: TAG,
  summary: 'List the people who have signed in through single sign-on, oldest first',
  input: { query: Type.Object(PageQuery, { additionalProperties: false }) },
  output: pageOf(User),
  async handler({ svc, principal, query }) {
    return pageAfter(query, (page) => svc.stores.users.list(principal.orgId, page), userView);
  },
});

const getUser = defineOperation({
  name: 'get_user',
  method: 'GET',
  role: 'admin',
  path: '/manage/v1/users/{user_id}',
  tag: TAG,
  summary: 'Get one single sign-on user',
  input: { params: UserIdParams },
  output: User,
  async handler({ svc, principal, params }) {
    const u = await svc.stores.users.get(principal.orgId, params.user_id);
    if (!u) throw notFound('user', params.user_id);
    return userView(u);
  },
});

const updateUser = defineOperation({
  name: 'update_user',
  method: 'PATCH',
  role: 'admin',
  path: '/manage/v1/users/{user_id}',
  tag: TAG,
  summary:
    "Change a user's role (kept across later sign-ins) or deactivate them (ends their sessions on every instance within a second)",
  input: {
    params: UserIdParams,
    body: Type.Object(
      {
        role: Type.Optional(RoleSchema),
        active: Type.Optional(Type.Boolean({ description: 'false deactivates: sessions end, sign-in is refused' })),
      },
      { additionalProperties: false, minProperties: 1 },
    ),
  },
  output: User,
  async handler({ svc, principal, params, body }) {
    // Locking oneself out is one click away otherwise; API-key sign-in is the way back, not this.
    if (principal.user?.id === params.user_id && (body.active === false || (body.role ?? 'admin') !== 'admin'))
      throw new GatewayError('invalid_parameter', {
        message: 'You cannot deactivate yourself or lower your own role; ask another admin',
        param: body.active === false ? 'active' : 'role',
      });
    const u = await svc.stores.users.update(principal.orgId, params.user_id, body);
    if (!u) throw notFound('user', params.user_id);
    return userView(u);
  },
});

export const userOperations: Operation[] = [listUsers, getUser, updateUser];
