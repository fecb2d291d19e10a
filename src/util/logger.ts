// Structured logs. Secrets are redacted by path so that nothing a handler logs by accident
// (headers, a body with api_key) reaches the output.
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config.ts';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["api-key"]',
  'req.headers["x-svc-provider-key"]',
  'req.headers["x-goog-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["api-key"]',
  'headers["x-svc-provider-key"]',
  'headers["x-goog-api-key"]',
  'api_key',
  'apiKey',
  '*.api_key',
  '*.apiKey',
  '*.*.api_key',
  '*.*.apiKey',
  'body.api_key',
  'credential.apiKey',
];

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { svc: 'switchyard' } };
  return destination ? pino(options, destination) : pino(options);
}
