/**
 * Thrown by family decoders on a malformed caller request. The route layer turns it into a 400 in the
 * family's own error shape, so the message must name the offending field the way the caller wrote it.
 */
export class InvalidRequestError extends Error {
  constructor(
    message: string,
    readonly param?: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'InvalidRequestError';
  }
}

/** Throws with `<path>: <problem>` so every message is anchored on the field. */
export function invalid(path: string, problem: string, code?: string): never {
  throw new InvalidRequestError(path ? `${path}: ${problem}` : problem, path || undefined, code);
}
