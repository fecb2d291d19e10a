// Fastify type augmentation: what buildApp() puts on the instance and on every request.
import type { Principal } from '../live/principals.ts';
import type { Services } from '../manage/services.ts';
import type { FrontDoor } from './front-door.ts';
import type { InFlight } from './proxy-routes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    svc: Services;
    /** Proxy calls in flight; a shutdown past its drain time ends them with an error answer. */
    inFlight: InFlight;
    /** Serves the common model call ahead of fastify's router (front-door.ts). */
    frontDoor: FrontDoor;
  }
  interface FastifyRequest {
    /**
     * The authenticated caller. Set by the auth hook on every /alpha, /beta, /manage and /mcp route
     * before any handler runs; absent only on the public routes (/healthz, /openapi.yaml).
     */
    principal: Principal;
    /** The exact JSON text of the body, so pass-through can forward bytes unchanged. */
    rawBody: string | undefined;
    /** `req_<ulid>`, also sent as the X-Svc-Request-Id response header. */
    svcId: string;
  }
}
