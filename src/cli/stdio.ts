// A reader that goes away early (`switchyard openapi | head -3`) is normal use of a command line
// tool, not an error: without a listener, the EPIPE on stdout is thrown as an uncaught 'error' event
// and prints a stack trace. The output is simply no longer wanted, so later writes are dropped and
// the command ends as it would have (a server keeps serving, its log just goes nowhere).
type StdStream = NodeJS.WriteStream;

function isClosedPipe(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED';
}

export function ignoreClosedPipes(streams: StdStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    stream.on('error', (err: unknown) => {
      if (isClosedPipe(err)) return;
      // Anything else (a full disk behind a redirect) is a real failure, reported as before.
      throw err;
    });
  }
}
