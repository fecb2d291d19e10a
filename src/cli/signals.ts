// The long-running CLI commands (fake-upstream, demo) stop on the first SIGINT or SIGTERM. Both
// listeners are removed once one fires, so a second Ctrl+C falls back to node's default and kills a
// shutdown that hangs.
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}
