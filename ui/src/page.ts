// What every page receives from the shell.
import type { Location } from './router.ts';
import type { Session } from './session.ts';

export interface PageProps {
  session: Session;
  loc: Location;
  /** The route's captured path segments, decoded (a request id, a config id). */
  params: string[];
}
