// Ids a Responses create body hands to the vendor to resolve: `previous_response_id` and the
// `file_id` of `input_file` parts. On a stored credential every project shares one vendor account,
// so the vendor would resolve another project's id as readily as the caller's own: the gateway
// checks each against its own records first. An id it did not record for the caller's project (or,
// for an org-wide key, the org) is refused exactly like an unknown one, so the answer never tells
// whether an id exists elsewhere. A BYOK call is left to the vendor: the caller's own key scopes it.
import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal } from '../live/principals.ts';
import type { FileRecord } from '../store/files.ts';
import type { ResponseRecord } from '../store/responses.ts';
import { isRecord } from '../util/json.ts';

export interface ReferenceLookups {
  response(orgId: string, id: string): Promise<ResponseRecord | undefined>;
  file(orgId: string, id: string): Promise<FileRecord | undefined>;
}

/** More file parts than this in one body is not a conversation; each would cost a store read. */
const MAX_FILE_REFERENCES = 64;

/** `file_id`s of the input items' `input_file` parts (the only place the create body names files). */
export function referencedFiles(input: unknown): string[] {
  if (!Array.isArray(input)) return [];
  const ids: string[] = [];
  for (const item of input) {
    if (!isRecord(item) || !Array.isArray(item.content)) continue;
    for (const part of item.content) {
      if (isRecord(part) && part.type === 'input_file' && typeof part.file_id === 'string') ids.push(part.file_id);
    }
  }
  return ids;
}

const visibleTo = (p: Principal, row: { projectId: string | null } | undefined): boolean =>
  row !== undefined && (p.projectId === null || row.projectId === p.projectId);

/** Throws the refusal for the first id the caller may not use; resolves when all are theirs. */
export async function checkReferences(p: Principal, body: Record<string, unknown>, look: ReferenceLookups) {
  const previous = body.previous_response_id;
  if (typeof previous === 'string' && !visibleTo(p, await look.response(p.orgId, previous))) {
    throw new GatewayError('invalid_parameter', {
      message: `Previous response with id '${previous.slice(0, 100)}' not found.`,
      param: 'previous_response_id',
    });
  }
  const files = [...new Set(referencedFiles(body.input))];
  if (files.length > MAX_FILE_REFERENCES) {
    throw new GatewayError('invalid_parameter', {
      message: `At most ${MAX_FILE_REFERENCES} distinct input files per request, got ${files.length}.`,
      param: 'input',
    });
  }
  for (const id of files) {
    if (!visibleTo(p, await look.file(p.orgId, id)))
      throw new GatewayError('invalid_parameter', {
        message: `No such File object: ${id.slice(0, 100)}`,
        param: 'input',
      });
  }
}
