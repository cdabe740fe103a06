// A fake System 1 for the gates' unit tests (the integration tests use a real endpoint).
import type { ModelRequest } from '../../models/index.js';
import type { ModelUse } from './service.js';

/** A System 1 that answers `answer` (or throws it), and remembers what it was asked. */
export function fakeModels(answer: unknown, configured = true) {
  const asked: ModelRequest[] = [];
  const models: ModelUse = {
    configured: (system) => configured && system === 's1',
    replayOnly: () => false,
    call: async (_system, request) => {
      asked.push(request);
      if (answer instanceof Error) throw answer;
      return {
        value: answer,
        usage: { prompt_tokens: 1, completion_tokens: 1 },
        model: 'fake',
        seconds: 0,
        cached: false,
      };
    },
    describe: () => ({ system2: null, system1: null, cassette: null }),
  };
  return { models, asked };
}
