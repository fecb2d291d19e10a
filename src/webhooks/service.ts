// The webhooks feature at run time: fans each domain event out to the subscribed endpoints
// (EVENT_DISPATCH_JOB), delivers each delivery with Standard Webhooks signatures on the retry
// schedule (DELIVER_JOB), disables endpoints that kept failing, and turns credential breaker
// transitions into `provider.health_changed` events. Everything runs as leased jobs, so each
// delivery is attempted by one instance at a time and survives restarts; the proxy never waits here.
import type { Logger } from 'pino';
import type { SecretBox } from '../crypto/secretbox.ts';
import { runEvery } from '../jobs/recurring.ts';
import type { JobRunner } from '../jobs/runner.ts';
import { type Job, RetryAt } from '../jobs/types.ts';
import type { DomainEvent } from '../ports/domain-events.ts';
import type { LinkedSpan, TraceLinks } from '../ports/trace-links.ts';
import type { CredentialStore } from '../store/credentials.ts';
import type { Db } from '../store/db.ts';
import type { NewJob } from '../store/jobs.ts';
import { EVENT_DISPATCH_JOB, recordEvents } from '../store/outbox.ts';
import type { DeliveryRecord, WebhookDeliveryStore } from '../store/webhook-deliveries.ts';
import type { WebhookEndpointRecord, WebhookEndpointStore } from '../store/webhook-endpoints.ts';
import { isRecord } from '../util/json.ts';
import { exampleEvent, matches } from './event-catalog.ts';
import { maxAttempts, retryDelayMs } from './retry-schedule.ts';
import { type AttemptResult, WebhookSender } from './sender.ts';
import { sign } from './signing.ts';
import { checkEndpointUrl } from './url-policy.ts';

export const DELIVER_JOB = 'webhooks.deliver';
const SWEEP_JOB = 'webhooks.sweep';
const DAY_MS = 24 * 60 * 60_000;
/** Settled deliveries, their attempts and their events are kept this long. */
export const DELIVERY_RETENTION_MS = 30 * DAY_MS;
/** An endpoint whose every attempt failed for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60_000;
/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60_000;

export interface WebhookDeps {
  db: Db;
  endpoints: WebhookEndpointStore;
  deliveries: WebhookDeliveryStore;
  credentials: Pick<CredentialStore, 'get'>;
  secrets: SecretBox;
  logger: Logger;
}

export interface WebhookOptions {
  denyPrivate: boolean;
  /** Delays after each failed attempt (retry-schedule.ts). */
  retrySchedule: readonly number[];
  /** Per attempt (default 10 s). */
  timeoutMs?: number;
}

/** An attempt's client span in the HTTP client conventions; the URL's path and query are not recorded (they may hold a token). */
function endAttemptSpan(
  span: LinkedSpan,
  url: string,
  delivery: DeliveryRecord,
  attempt: number,
  result: AttemptResult,
): void {
  const u = new URL(url);
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  span.end(
    {
      'http.request.method': 'POST',
      'server.address': u.hostname,
      'server.port': u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : Number(u.port),
      'url.scheme': u.protocol.slice(0, -1),
      'http.response.status_code': result.status,
      'http.request.resend_count': attempt > 1 ? attempt - 1 : undefined,
      'switchyard.webhook.delivery_id': delivery.id,
      'switchyard.webhook.endpoint_id': delivery.endpointId,
      'switchyard.webhook.event_id': delivery.eventId,
      'switchyard.webhook.event_type': delivery.eventType,
      'switchyard.org_id': delivery.orgId,
    },
    ok ? undefined : result.status !== null ? String(result.status) : 'no_answer',
  );
}

const secretAad = (orgId: string, endpointId: string) => `webhook:${orgId}:${endpointId}`;

function payloadId(job: Job, key: string): string {
  const v = isRecord(job.payload) ? job.payload[key] : undefined;
  if (typeof v !== 'string') throw new Error(`job ${job.id} has no ${key}`);
  return v;
}

export class Webhooks {
  readonly #deps: WebhookDeps;
  readonly #opts: WebhookOptions;
  readonly #sender: WebhookSender;
  /** Set by the app when tracing is on: each attempt is then a client span linked to the event's call. */
  traceLinks: TraceLinks | undefined;

  constructor(deps: WebhookDeps, opts: WebhookOptions) {
    this.#deps = deps;
    this.#opts = opts;
    this.#sender = new WebhookSender({ denyPrivate: opts.denyPrivate, timeoutMs: opts.timeoutMs });
  }

  /** Registers the job handlers; from here on this instance dispatches, delivers and sweeps. */
  async start(jobs: JobRunner): Promise<void> {
    jobs.register(EVENT_DISPATCH_JOB, (job) => this.#dispatch(job));
    jobs.register(DELIVER_JOB, (job, ctx) => this.#deliver(job, ctx.signal), {
      onAbandoned: (job, reason) => this.#abandoned(job, reason),
    });
    await runEvery(jobs, SWEEP_JOB, DAY_MS, () => this.sweep());
  }

  /** Deletes settled deliveries and events older than DELIVERY_RETENTION_MS. */
  async sweep(now: number = Date.now()): Promise<void> {
    const removed = await this.#deps.deliveries.purge(new Date(now - DELIVERY_RETENTION_MS).toISOString());
    if (removed.deliveries + removed.events > 0) this.#deps.logger.info(removed, 'webhook history swept');
  }

  /** The job that delivers a delivery: keyed by its id, one attempt per scheduled retry plus the first. */
  readonly deliveryJob = (deliveryId: string): NewJob => ({
    kind: DELIVER_JOB,
    payload: { delivery_id: deliveryId },
    idempotencyKey: deliveryId,
    maxAttempts: maxAttempts(this.#opts.retrySchedule),
  });

  sealSecret(orgId: string, endpointId: string, secret: string): string {
    return this.#deps.secrets.encrypt(secret, secretAad(orgId, endpointId));
  }

  /** The secrets a delivery is signed with now: the current one, and the previous during the overlap. */
  signingSecrets(e: WebhookEndpointRecord, now: number = Date.now()): string[] {
    const open = (sealed: string) => this.#deps.secrets.decrypt(sealed, secretAad(e.orgId, e.id));
    const out = [open(e.secretCiphertext)];
    const until = e.previousSecretExpiresAt === null ? 0 : Date.parse(e.previousSecretExpiresAt);
    if (e.previousSecretCiphertext !== null && until > now) out.push(open(e.previousSecretCiphertext));
    return out;
  }

  /** POST .../test: a synthetic event of `type` for this endpoint only, through the normal path. */
  sendTest(endpoint: WebhookEndpointRecord, type: DomainEvent['type']): Promise<DeliveryRecord> {
    const example = exampleEvent(type).data;
    const data = type === 'webhook.test' ? { ...example, endpoint_id: endpoint.id } : example;
    return this.#deps.deliveries.createDirect(
      { orgId: endpoint.orgId, type, data: { ...(data as DomainEvent['data']), test: true } },
      endpoint.id,
      this.deliveryJob,
    );
  }

  /** Emits `provider.health_changed` for a credential breaker transition; never throws. */
  credentialHealthChanged(orgId: string, credentialId: string, coolingDown: boolean, until: number): void {
    const run = async () => {
      const p = await this.#deps.credentials.get(orgId, credentialId);
      if (!p) return;
      const [previous, current] = coolingDown ? ['healthy', 'cooling_down'] : ['cooling_down', 'healthy'];
      await recordEvents(this.#deps.db, [
        {
          orgId,
          type: 'provider.health_changed',
          data: {
            id: p.id,
            vendor: p.vendor,
            name: p.name,
            previous,
            current,
            cooldown_until: coolingDown ? new Date(until).toISOString() : null,
          },
        },
      ]);
    };
    run().catch((err: unknown) =>
      this.#deps.logger.warn({ err, credential: credentialId }, 'could not record provider.health_changed'),
    );
  }

  close(): Promise<void> {
    return this.#sender.close();
  }

  async #dispatch(job: Job): Promise<void> {
    const event = await this.#deps.deliveries.getEvent(payloadId(job, 'event_id'));
    if (!event) return;
    const type = event.type as DomainEvent['type'];
    const endpoints = await this.#deps.endpoints.listActive(event.orgId);
    // An endpoint created or re-activated after the event was not subscribed when it happened.
    const chosen = endpoints.filter((e) => e.activeSince <= event.createdAt && matches(e.eventTypes, type));
    await this.#deps.deliveries.fanOut(
      event,
      chosen.map((e) => e.id),
      this.deliveryJob,
    );
  }

  async #deliver(job: Job, signal: AbortSignal): Promise<void> {
    const { endpoints, deliveries, logger } = this.#deps;
    const deliveryId = payloadId(job, 'delivery_id');
    const found = await deliveries.forSend(deliveryId);
    // Delivered already: a run whose completion was lost (crash after the 2xx was recorded).
    if (!found || found.delivery.status === 'delivered') return;
    const { delivery, body, traceLink } = found;
    const endpoint = await endpoints.get(delivery.orgId, delivery.endpointId);
    // Nothing to retry when the endpoint is gone or its address is now refused by policy.
    if (!endpoint) return this.#giveUp(deliveryId, 'endpoint not found');
    const verdict = checkEndpointUrl(endpoint.url, { denyPrivate: this.#opts.denyPrivate });
    if (!verdict.ok) return this.#giveUp(deliveryId, verdict.reason);
    const startedAt = Date.now();
    const headers = sign(
      { id: delivery.eventId, timestamp: Math.floor(startedAt / 1000), body },
      this.signingSecrets(endpoint, startedAt),
    );
    const span = this.traceLinks?.startLinked('POST', 'client', traceLink);
    // The receiver may continue the attempt's trace, as an upstream continues a call's.
    const sent: Record<string, string> =
      span === undefined ? { ...headers } : { ...headers, traceparent: span.traceparent };
    const result = await this.#sender.post(endpoint.url, sent, body, signal);
    if (span !== undefined) endAttemptSpan(span, endpoint.url, delivery, job.attempt, result);
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const last = job.attempt >= job.maxAttempts;
    const delay = ok || last ? null : retryDelayMs(job.attempt, this.#opts.retrySchedule);
    const nextAt = delay === null ? null : Date.now() + delay;
    await deliveries.recordAttempt(
      deliveryId,
      {
        startedAt: new Date(startedAt).toISOString(),
        durationMs: result.durationMs,
        responseStatus: result.status,
        responseBody: result.body,
        error: result.error,
      },
      {
        status: ok ? 'delivered' : nextAt === null ? 'failed' : 'pending',
        nextAttemptAt: nextAt === null ? null : new Date(nextAt).toISOString(),
      },
    );
    if (ok) {
      await endpoints.markSucceeded(endpoint.id);
      return;
    }
    const since = await endpoints.markFailed(endpoint.id, new Date(startedAt).toISOString());
    if (since !== null && startedAt - Date.parse(since) >= DISABLE_AFTER_MS) {
      const reason = `every delivery attempt failed since ${since}`;
      if (await endpoints.disable(endpoint.orgId, endpoint.id, reason)) {
        logger.warn({ endpoint: endpoint.id, url: endpoint.url }, 'webhook endpoint disabled after 5 days of failures');
      }
    }
    if (nextAt !== null) throw new RetryAt(`attempt ${job.attempt}: ${result.error ?? 'failed'}`, nextAt);
  }

  /** Every attempt of the job died with its holder: the delivery will not be tried again. */
  #abandoned(job: Job, reason: string): Promise<void> {
    return this.#giveUp(payloadId(job, 'delivery_id'), reason);
  }

  /** Records an attempt that made no request and marks the delivery `failed`. */
  async #giveUp(deliveryId: string, error: string): Promise<void> {
    await this.#deps.deliveries.recordAttempt(
      deliveryId,
      { startedAt: new Date().toISOString(), durationMs: 0, responseStatus: null, responseBody: null, error },
      { status: 'failed', nextAttemptAt: null },
    );
  }
}
