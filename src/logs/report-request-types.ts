// Which calls an analytics report counts, by request_type (the column every log row and rollup row
// carries). Kept in one place: the report's default, its documentation (README "Analytics report",
// the operation's description) and the tests all read this list.

/**
 * The request types of calls that ask a model for an answer: what a user means by requests, and
 * what a report counts unless told otherwise. Everything else (batch and file management, polls
 * of stored responses) is bookkeeping around them. A batch counts once, as its `batch_execution`
 * row; its items are not logged apart.
 */
export const INFERENCE_REQUEST_TYPES: readonly string[] = [
  'chat_completion',
  'message',
  'embedding',
  'response_create',
  'image_generation',
  'audio_speech',
  'audio_transcription',
  'audio_translation',
  'batch_execution',
];

/** Stands for INFERENCE_REQUEST_TYPES in a list of types. */
export const INFERENCE = 'inference';
/** Every request type. */
export const ALL_TYPES = 'all';
/**
 * The type of rollup rows written before types were kept (migration 130). They mixed every type,
 * and counting them with inference keeps the totals of past periods as they were.
 */
export const UNTYPED = '';

/** Request types (INFERENCE may stand among them for the inference list), or every type. */
export type RequestTypeFilter = readonly string[] | typeof ALL_TYPES;

/** The request_type values to read; undefined = every one. */
export function typesToRead(filter: RequestTypeFilter | undefined): readonly string[] | undefined {
  if (filter === ALL_TYPES) return undefined;
  const names = (filter ?? [INFERENCE]).flatMap((t) => (t === INFERENCE ? [...INFERENCE_REQUEST_TYPES, UNTYPED] : [t]));
  return [...new Set(names)];
}
