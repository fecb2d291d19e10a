// Path table of the OpenAI wire (paths relative to the API root, e.g. `/chat/completions`).
import type { FakeContext } from '../context.ts';
import { handleCancelBatch, handleCreateBatch, handleGetBatch, handleListBatches } from './batches.ts';
import { handleChat } from './chat.ts';
import { handleEmbeddings } from './embeddings.ts';
import type { OaiEnv, Route } from './env.ts';
import { sendError } from './errors.ts';
import { handleDeleteFile, handleFileContent, handleGetFile, handleListFiles, handleUploadFile } from './files.ts';
import { handleImageBlob, handleImages, handleSpeech, handleTranscription } from './media.ts';
import { handleGetModel, handleListModels } from './models.ts';
import {
  handleCancelResponse,
  handleCreateResponse,
  handleDeleteResponse,
  handleGetResponse,
  handleInputItems,
} from './responses/handlers.ts';

const STATIC = new Map<string, Route>([
  ['POST /chat/completions', handleChat],
  ['POST /embeddings', handleEmbeddings],
  ['GET /models', handleListModels],
  ['POST /files', handleUploadFile],
  ['GET /files', handleListFiles],
  ['POST /batches', handleCreateBatch],
  ['GET /batches', handleListBatches],
  ['POST /responses', handleCreateResponse],
  ['POST /images/generations', handleImages],
  ['POST /audio/speech', handleSpeech],
  ['POST /audio/transcriptions', handleTranscription],
  ['POST /audio/translations', handleTranscription],
]);

const DYNAMIC: Array<[string, RegExp, Route]> = [
  ['GET', /^\/models\/(.+)$/, handleGetModel],
  ['GET', /^\/files\/([^/]+)$/, handleGetFile],
  ['DELETE', /^\/files\/([^/]+)$/, handleDeleteFile],
  ['GET', /^\/files\/([^/]+)\/content$/, handleFileContent],
  ['GET', /^\/batches\/([^/]+)$/, handleGetBatch],
  ['POST', /^\/batches\/([^/]+)\/cancel$/, handleCancelBatch],
  ['GET', /^\/responses\/([^/]+)$/, handleGetResponse],
  ['DELETE', /^\/responses\/([^/]+)$/, handleDeleteResponse],
  ['POST', /^\/responses\/([^/]+)\/cancel$/, handleCancelResponse],
  ['GET', /^\/responses\/([^/]+)\/input_items$/, handleInputItems],
];

/** Paths served without credentials (blob URLs the fake handed out). */
export function isPublicPath(path: string): boolean {
  return path.startsWith('/__fake/images/');
}

export function findRoute(method: string, path: string): { route: Route; params: string[] } | undefined {
  const hit = STATIC.get(`${method} ${path}`);
  if (hit) return { route: hit, params: [] };
  if (method === 'GET' && isPublicPath(path)) return { route: handleImageBlob, params: [] };
  for (const [m, re, route] of DYNAMIC) {
    if (m !== method) continue;
    const match = re.exec(path);
    if (match) return { route, params: match.slice(1).map(decodeURIComponent) };
  }
  return undefined;
}

/** Runs the route for `path`, or answers the API's own 404 for an unknown URL. */
export async function dispatchOpenAI(ctx: FakeContext, env: OaiEnv, path: string): Promise<void> {
  const found = findRoute(ctx.method, path);
  if (!found)
    return sendError(ctx, {
      status: 404,
      message: `Invalid URL (${ctx.method} ${env.base}${path})`,
      type: 'invalid_request_error',
      param: null,
      code: null,
    });
  await found.route(ctx, env, found.params);
}
