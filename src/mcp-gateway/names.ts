// Federated names: `<server>__<name>`, at most 64 characters of [a-zA-Z0-9_-], the set every model
// vendor accepts for a function name. A name that does not fit is cut and given a short hash of
// the original (as is one with other characters), so two names of one server stay distinct and the
// same name always maps alike.
import { createHash } from 'node:crypto';

export const SEPARATOR = '__';
const MAX = 64;

/** Server names: lowercase, no double underscore (it separates the server from the tool). */
export const SERVER_NAME = /^[a-z0-9](?:[a-z0-9-]|_(?!_))*$/;

export function federatedName(server: string, name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9_-]/g, '_');
  const full = `${server}${SEPARATOR}${clean}`;
  if (full.length <= MAX && clean === name) return full;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${full.slice(0, MAX - 9)}_${hash}`;
}

/** The server part of a federated name, or undefined when there is none. */
export function serverOf(federated: string): string | undefined {
  const i = federated.indexOf(SEPARATOR);
  return i <= 0 ? undefined : federated.slice(0, i);
}
