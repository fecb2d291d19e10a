// Runs tools/fake-upstream alone in this process so that the gateway and the fake never share an
// event loop during a bench. Usage: node --import tsx bench/fake-main.ts <port>
import { startFakeUpstream } from '../tools/fake-upstream/server.ts';

const fake = await startFakeUpstream({ port: Number(process.argv[2] ?? 0), record: false });
process.stdout.write(`fake upstream listening on ${fake.url}\n`);
const stop = () => {
  void fake.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
