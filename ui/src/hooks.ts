// Data loading for pages: one request per view, cancelled when the view changes, its error kept
// for display. Mutations go through useAction so a failed save shows its error next to the form.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, get, isAbort, type Query } from './api.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => void;
}

function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError(0, err instanceof Error ? err.message : String(err));
}

/** GET `path` (null: nothing to load yet) and reload whenever the path or query changes. */
export function useApi<T>(path: string | null, query?: Query): Loaded<T> {
  const key = JSON.stringify([path, query ?? null]);
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean; key?: string }>({
    loading: path !== null,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) {
      setState({ loading: false });
      return;
    }
    const ac = new AbortController();
    setState((s) => ({ data: s.data, loading: true, key: s.key }));
    get<T>(path, query, ac.signal).then(
      (data) => setState({ data, loading: false, key }),
      (err: unknown) => {
        if (!isAbort(err)) setState({ error: asApiError(err), loading: false, key });
      },
    );
    return () => ac.abort();
  }, [key, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  // Data for another path or query is already stale in the render that follows the change, before
  // the effect starts the new request: pages then show it as updating, never as current.
  const loading = state.loading || (path !== null && state.key !== key);
  return { data: state.data, error: state.error, loading, reload };
}

/** Several loads at once (fan-out over projects, say); settles when all have. */
export function useAll<T>(
  key: string,
  load: (signal: AbortSignal) => Promise<T>,
): { data: T | undefined; error: ApiError | undefined } {
  const [state, setState] = useState<{ data?: T; error?: ApiError; key?: string }>({});
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    const ac = new AbortController();
    loader.current(ac.signal).then(
      (data) => setState({ data, key }),
      (err: unknown) => {
        if (!isAbort(err)) setState({ error: asApiError(err), key });
      },
    );
    return () => ac.abort();
  }, [key]);
  // What was loaded for another key is not shown as this one's.
  return state.key === key ? { data: state.data, error: state.error } : { data: undefined, error: undefined };
}

export interface Action<A extends unknown[], R> {
  run: (...args: A) => Promise<R | undefined>;
  pending: boolean;
  error: ApiError | undefined;
  result: R | undefined;
  reset: () => void;
}

/** A mutation: its pending flag, its last error (shown, never swallowed) and its last result. */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>): Action<A, R> {
  const [state, setState] = useState<{ pending: boolean; error?: ApiError; result?: R }>({ pending: false });
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const run = useCallback(async (...args: A) => {
    setState({ pending: true });
    try {
      const result = await fnRef.current(...args);
      setState({ pending: false, result });
      return result;
    } catch (err) {
      setState({ pending: false, error: asApiError(err) });
      return undefined;
    }
  }, []);
  const reset = useCallback(() => setState({ pending: false }), []);
  return { run, pending: state.pending, error: state.error, result: state.result, reset };
}
