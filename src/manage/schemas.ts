// Schemas shared by several management resources.
import { type TSchema, Type } from '@sinclair/typebox';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Timestamp = Type.String({ description: 'ISO-8601 UTC timestamp' });

export const PageQuery = {
  cursor: Type.Optional(
    Type.String({ maxLength: 200, description: 'Opaque cursor: the next_cursor of the previous page' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size (max 200)' })),
};

export const pageOf = <T extends TSchema>(item: T) =>
  Type.Object({
    data: Type.Array(item),
    next_cursor: Nullable(Type.String()),
    has_more: Type.Boolean(),
  });

export const ErrorBody = Type.Object({
  error: Type.Object({
    message: Type.String(),
    type: Type.String(),
    param: Nullable(Type.String()),
    code: Nullable(Type.String()),
  }),
});

export const DeletedResult = Type.Object({ id: Type.String(), object: Type.String(), deleted: Type.Boolean() });
