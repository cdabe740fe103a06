// The child process that holds the model (forked by runtime.ts). A malformed or hostile model
// file can crash llama.cpp; here that ends only this process, and the parent sees the exit.
// Protocol (IPC): parent sends {type:'load', options} once, then {type:'call', id, request};
// the child answers {type:'loaded'} or {type:'failed', message}, and {id, answer} or
// {id, error}.
import { loadEngine } from './engine.js';
import type { Engine, EngineOptions, EngineRequest } from './engine.js';

type Incoming =
  | { type: 'load'; options: EngineOptions }
  | { type: 'call'; id: number; request: EngineRequest }
  | { type: 'close' };

let engine: Engine | null = null;
const send = (message: unknown) => process.send?.(message);
const text = (error: unknown) => (error instanceof Error ? error.message : String(error));

process.on('message', (message: Incoming) => {
  void (async () => {
    if (message.type === 'load') {
      try {
        engine = await loadEngine(message.options);
        send({ type: 'loaded', gpu: engine.gpu });
      } catch (error) {
        send({ type: 'failed', message: text(error) });
      }
    } else if (message.type === 'call') {
      try {
        if (!engine) throw new Error('no model loaded');
        send({ id: message.id, answer: await engine.generate(message.request) });
      } catch (error) {
        send({ id: message.id, error: text(error) });
      }
    } else {
      await engine?.close().catch(() => undefined);
      process.disconnect();
      process.exit(0);
    }
  })();
});
process.on('disconnect', () => process.exit(0));
