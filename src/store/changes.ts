// What a store needs of the change bus: publishing. Every write that changes what the proxy sees
// awaits its publish after the commit, so in-process mirrors are current when the write returns.
import type { ChangeBus } from '../ports/change-bus.ts';

export type ChangePublisher = Pick<ChangeBus, 'publish'>;

/** For tools that open the store with nobody to tell (tests, migrations). */
export const NO_CHANGES: ChangePublisher = { publish: () => Promise.resolve() };
