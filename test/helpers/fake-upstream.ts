// One fake upstream (tools/fake-upstream) for the tests of a file: started before the first test,
// closed after the last. Its address is known only once it listens, so read `url` inside a test.
import { after, before } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';

export function useFakeUpstream(): { readonly url: string } {
  let fake: FakeUpstream | undefined;
  before(async () => {
    fake = await startFakeUpstream({ port: 0 });
  });
  after(async () => {
    await fake?.close();
  });
  return {
    get url(): string {
      if (!fake) throw new Error('the fake upstream is not listening yet: read url inside a test or hook');
      return fake.url;
    },
  };
}
