// The local runtime: a GGUF model run by node-llama-cpp, behind the same ModelClient as an
// endpoint. The model lives in a child process (worker.ts), because a malformed model file
// can kill the process that loads it; here a crash becomes a 'refused' ModelError.
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ModelError } from '../types.js';
import type { ModelAnswer, ModelClient, ModelRequest } from '../types.js';
import { answerValue } from '../validate.js';
import { NO_GPU } from './engine.js';
import type { EngineAnswer, EngineOptions } from './engine.js';

export interface LocalClientOptions {
  modelPath: string;
  /** false: CPU only (tests); 'auto' (default): the GPU when there is one. */
  gpu?: false | 'auto';
  /** CPU threads (default: one core left to the service, at most 4; tests use 1). */
  threads?: number;
  contextSize?: number;
  /** Refuse to serve when llama.cpp found no GPU (production placement). */
  requireGpu?: boolean;
  /** The worker script and node flags; default: see defaultWorker. */
  worker?: { path: string; execArgv: string[] };
}

export interface LocalClient extends ModelClient {
  /** Resolves when the model is loaded, with the backend found ('cuda', 'vulkan', … or false). */
  ready(): Promise<{ gpu: string | false }>;
  close(): Promise<void>;
}

type Reply = { id: number; answer?: EngineAnswer; error?: string };
type Status = { type: 'loaded'; gpu: string | false } | { type: 'failed'; message: string };

/**
 * From source (tsx, vitest) worker.ts through tsx; from a bundle (dist/server.mjs,
 * dist/svc-core.mjs, dist/main/main.cjs) the models-worker.mjs that build/bundle.mjs writes
 * beside it.
 */
function defaultWorker(): { path: string; execArgv: string[] } {
  const ts = import.meta.url.endsWith('.ts');
  const path = fileURLToPath(new URL(ts ? './worker.ts' : './models-worker.mjs', import.meta.url));
  return { path, execArgv: ts ? ['--import', 'tsx'] : [] };
}

export function createLocalClient(options: LocalClientOptions): LocalClient {
  const worker = options.worker ?? defaultWorker();
  const child: ChildProcess = fork(worker.path, [], {
    execArgv: worker.execArgv,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let exited: string | null = null;
  let closing = false;

  const loaded = new Promise<{ gpu: string | false }>((resolve, reject) => {
    child.on('message', (message: Reply | Status) => {
      if ('type' in message) {
        if (message.type === 'failed') {
          const why = message.message === NO_GPU ? NO_GPU : `model load failed: ${message.message}`;
          reject(new Error(why));
          // Nothing more to serve: the child goes, so a refused model holds no memory.
          child.send({ type: 'close' });
        } else resolve({ gpu: message.gpu });
        return;
      }
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      waiter?.resolve(message);
    });
    // A message sent to a child that is already exiting fails (EPIPE) as an 'error' event:
    // its 'exit' settles what waits on it. Only a child that never started has no 'exit'.
    child.on('error', (error) => {
      if (child.pid !== undefined) return;
      exited = `model process could not start: ${error.message}`;
      reject(new Error(exited));
    });
    child.on('exit', (code, signal) => {
      exited = `model process exited (${signal ?? `code ${code}`})${closing ? '' : `: ${stderr.trim().slice(-300)}`}`;
      reject(new Error(exited));
      for (const waiter of pending.values()) waiter.reject(new Error(exited));
      pending.clear();
    });
  });
  loaded.catch(() => undefined);
  const load: EngineOptions = {
    modelPath: options.modelPath,
    gpu: options.gpu ?? 'auto',
    threads: options.threads ?? Math.max(1, Math.min(4, availableParallelism() - 1)),
    ...(options.contextSize ? { contextSize: options.contextSize } : {}),
    ...(options.requireGpu ? { requireGpu: true } : {}),
  };
  child.send({ type: 'load', options: load });

  const refused = (request: ModelRequest, why: string) =>
    new ModelError('refused', `local model refused "${request.purpose}": ${why}`, {
      purpose: request.purpose,
      status: null,
    });

  return {
    ready: () => loaded,
    async call(request: ModelRequest, signal?: AbortSignal): Promise<ModelAnswer> {
      signal?.throwIfAborted();
      const started = Date.now();
      try {
        await loaded;
      } catch (error) {
        throw refused(request, (error as Error).message);
      }
      if (exited) throw refused(request, exited);
      const id = nextId++;
      const reply = await new Promise<Reply>((resolve, reject) => {
        const onAbort = () => {
          pending.delete(id);
          // The caller's own abort reason passes through unchanged (see docs/models.md).
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        const done =
          <T>(f: (v: T) => void) =>
          (v: T) => {
            signal?.removeEventListener('abort', onAbort);
            f(v);
          };
        pending.set(id, { resolve: done(resolve), reject: done(reject) });
        const { system, user, schema, max_tokens } = request;
        child.send({ type: 'call', id, request: { system, user, schema, max_tokens } });
      }).catch((error: unknown) => {
        if (signal?.aborted) throw error;
        throw refused(request, (error as Error).message);
      });
      if (!reply.answer) throw refused(request, reply.error ?? 'no answer');
      return {
        value: answerValue(request, reply.answer.text, 'local model'),
        usage: {
          prompt_tokens: reply.answer.prompt_tokens,
          completion_tokens: reply.answer.completion_tokens,
        },
        model: reply.answer.model,
        seconds: (Date.now() - started) / 1000,
        cached: false,
      };
    },
    async close() {
      if (exited) return;
      closing = true;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      if (child.connected) child.send({ type: 'close' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    },
  };
}
