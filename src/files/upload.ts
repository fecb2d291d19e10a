// Reads an upload's form parts in the order they arrive. The file's bytes go to a sink as they come
// (to disk or the database for a gateway-held file, into a chunk list for an upstream): SDKs send
// `file` before `purpose`, so the purpose is often known only after the content has been taken in.
import { GatewayError } from '../errors/gateway-error.ts';
import { badPurpose, isPurpose } from './objects.ts';

/** One part of a multipart/form-data body; a file's content must be consumed before the next part comes. */
export type FormPart =
  | { kind: 'field'; name: string; value: string }
  | {
      kind: 'file';
      name: string;
      filename: string | undefined;
      contentType: string;
      content: AsyncIterable<Uint8Array>;
    };

export interface FilePart {
  filename: string;
  contentType: string;
  content: AsyncIterable<Uint8Array>;
}

export interface ReceivedUpload {
  purpose: string;
  filename: string;
  contentType: string;
  bytes: number;
  /** Text fields other than `purpose`, in order (passed on to an upstream). */
  fields: Array<[string, string]>;
}

/** Takes the file's content in and resolves with its size. */
export type FileSink = (file: FilePart) => Promise<number>;

async function drain(content: AsyncIterable<Uint8Array>): Promise<void> {
  for await (const _ of content) {
    // discarded
  }
}

function missing(param: string): GatewayError {
  return new GatewayError('invalid_request', { message: `Missing required parameter: '${param}'.`, param });
}

/**
 * Reads every part; the first `file` part goes to `sink`, unless a `purpose` already seen is invalid
 * (then it is read and dropped). Throws the 400 for a missing file or purpose, or a bad purpose, once
 * the body has been read: whatever the sink kept is then the caller's to undo.
 */
export async function receiveUpload(parts: AsyncIterable<FormPart>, sink: FileSink): Promise<ReceivedUpload> {
  let purpose: string | undefined;
  let file: Omit<ReceivedUpload, 'purpose' | 'fields'> | undefined;
  const fields: Array<[string, string]> = [];
  for await (const part of parts) {
    if (part.kind === 'field') {
      if (part.name === 'purpose') purpose ??= part.value;
      else fields.push([part.name, part.value]);
      continue;
    }
    if (part.name !== 'file' || file !== undefined || (purpose !== undefined && !isPurpose(purpose))) {
      await drain(part.content);
      continue;
    }
    const filename = part.filename || 'file';
    const contentType = part.contentType || 'application/octet-stream';
    const bytes = await sink({ filename, contentType, content: part.content });
    file = { filename, contentType, bytes };
  }
  if (purpose !== undefined && !isPurpose(purpose)) throw badPurpose(purpose);
  if (file === undefined) throw missing('file');
  if (purpose === undefined) throw missing('purpose');
  return { ...file, purpose, fields };
}
