// Key metadata (issue 33) travels in the request log row beside the call's tags, each pair as a tag
// named `key_metadata:<name>`, so the analytics rollups (group_by key_metadata:<name>) and budget
// rebuilds read it through what tags already have, with no second copy of that machinery. The
// prefix is reserved: a caller's own tag under it is dropped, so no call can pass for another key's.

export const KEY_METADATA_TAG = 'key_metadata:';

const EMPTY: Readonly<Record<string, string>> = Object.freeze({});

/** The row's tags: the caller's (less any under the reserved prefix) and the key's metadata. */
export function withKeyMetadata(
  tags: Readonly<Record<string, string>>,
  metadata: Readonly<Record<string, string>> | null | undefined,
): Readonly<Record<string, string>> {
  let out: Record<string, string> | undefined;
  for (const k in tags) {
    if (!k.startsWith(KEY_METADATA_TAG)) continue;
    out ??= { ...tags };
    delete out[k];
  }
  if (metadata == null) return out ?? tags;
  out ??= { ...tags };
  for (const name in metadata) out[`${KEY_METADATA_TAG}${name}`] = metadata[name] as string;
  return out;
}

/** The key metadata carried in a logged row's tags. */
export function keyMetadataOfTags(tags: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  let out: Record<string, string> | undefined;
  for (const k in tags) {
    if (!k.startsWith(KEY_METADATA_TAG)) continue;
    out ??= {};
    out[k.slice(KEY_METADATA_TAG.length)] = tags[k] as string;
  }
  return out ?? EMPTY;
}
