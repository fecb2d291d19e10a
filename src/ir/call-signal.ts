// The abort state a proxy call carries down to its upstream attempts and stream relays.

/** What the proxy path reads of an abort signal: a real AbortSignal fits it, and so does util/call-abort.ts's CallAbort. */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
