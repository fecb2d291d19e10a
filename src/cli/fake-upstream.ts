// `switchyard fake-upstream`: the seven vendors emulated on one port, for demos, local development and
// benchmarks (never for production traffic).
import { startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { ensurePortFree } from './ports.ts';
import { untilSignal } from './signals.ts';

export interface FakeUpstreamOptions {
  port: number;
  host: string;
  awsSecret: string;
  record: boolean;
}

export async function fakeUpstreamCommand(opts: FakeUpstreamOptions): Promise<number | undefined> {
  await ensurePortFree(opts.port, opts.host, '--port');
  const fake = await startFakeUpstream({
    port: opts.port,
    host: opts.host,
    awsSecret: opts.awsSecret,
    record: opts.record,
  });
  process.stdout.write(
    `fake upstream on ${fake.url}: /openai/v1 /together/v1 /fireworks/inference/v1 /azure /anthropic /google /bedrock\n`,
  );
  await untilSignal();
  await fake.close();
  return 0;
}
