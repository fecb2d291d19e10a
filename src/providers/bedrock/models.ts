// Converse is one API over many model families with different capabilities; these checks decide
// which optional fields a given model id may receive without a ValidationException.

/** Matches plain ids, regional inference profiles (`us.anthropic...`) and ARNs. */
export function isAnthropicModel(model: string): boolean {
  return /(^|[./])anthropic\./.test(model);
}

/** Prompt caching (`cachePoint` blocks) exists for Claude and Nova models only. */
export function supportsCachePoint(model: string): boolean {
  return isAnthropicModel(model) || /(^|[./])amazon\.nova/.test(model);
}

/** Non-Claude models reject `toolResult.status` ("This model doesn't support the toolResult.status field"). */
export function supportsToolResultStatus(model: string): boolean {
  return isAnthropicModel(model);
}

const IMAGE_FORMATS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

export function imageFormat(mediaType: string): string | undefined {
  return IMAGE_FORMATS[mediaType.toLowerCase()];
}
