// `switchyard fake-upstream --port <p> [--aws-secret <s>] [--no-record]`: the seven vendors emulated on
// one port, for demos, local development and benchmarks (never for production traffic).
import { parseArgs } from 'node:util';
import { startFakeUpstream } from '../../tools/fake-upstream/server.ts';

export async function fakeUpstreamCommand(args: string[]): Promise<number | undefined> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '9090' },
      host: { type: 'string', default: '127.0.0.1' },
      'aws-secret': { type: 'string', default: 'test-secret' },
      'no-record': { type: 'boolean', default: false },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port must be an integer between 0 and 65535, got "${values.port}"\n`);
    return 2;
  }
  const fake = await startFakeUpstream({
    port,
    host: values.host,
    awsSecret: values['aws-secret'],
    record: !values['no-record'],
  });
  process.stdout.write(
    `fake upstream on ${fake.url}: /openai/v1 /together/v1 /fireworks/inference/v1 /azure /anthropic /google /bedrock\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await fake.close();
  return 0;
}
