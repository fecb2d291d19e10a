// Thinking-block signatures: an HMAC of the thinking text, so a replayed block whose text or signature
// was altered (or dropped) by a translator is caught exactly like the real API does.
import { createHmac } from 'node:crypto';

const KEY = 'switchyard-fake-thinking-key';

export function signThinking(thinking: string): string {
  return `Sig${createHmac('sha256', KEY).update(thinking).digest('base64')}`;
}

export function verifyThinking(thinking: string, signature: string): boolean {
  return signature === signThinking(thinking);
}

/** The deterministic reasoning text the fake "thinks" for a given user text. */
export function thinkingText(lastUserText: string): string {
  const cut = lastUserText.length > 200 ? lastUserText.slice(0, 200) : lastUserText;
  return `Considering the request: ${cut}`;
}
