// The in-process llama.cpp engine (node-llama-cpp). Loading a malformed model file can kill
// the process that loads it, so only worker.ts calls this; runtime.ts talks to the worker.
// node-llama-cpp is ESM only and loaded lazily, so importing models/ never loads llama.cpp.
import type { JsonSchema } from '../types.js';

export interface EngineOptions {
  modelPath: string;
  /** false: CPU only (tests); 'auto': the GPU when there is one (production). */
  gpu: false | 'auto';
  /** CPU threads; 1 on small test machines (more is far slower on 2 cores). */
  threads: number;
  /** Context size in tokens; default: the model's own, capped by memory. */
  contextSize?: number;
  /** Refuse before loading the model when llama.cpp finds no GPU backend. */
  requireGpu?: boolean;
}

/** Why a local model is refused on a host where llama.cpp finds no GPU backend. */
export const NO_GPU = 'no GPU found: a local model is refused (models never run on the CPU)';

export interface EngineRequest {
  system: string;
  user: string;
  schema: JsonSchema;
  max_tokens: number;
}

export interface EngineAnswer {
  /** The generated text: JSON matching the schema's grammar (unless cut by max_tokens). */
  text: string;
  prompt_tokens: number;
  completion_tokens: number;
  model: string;
}

export interface Engine {
  /** The llama.cpp backend in use: 'cuda', 'vulkan', 'metal' or false (CPU). */
  gpu: string | false;
  generate(request: EngineRequest): Promise<EngineAnswer>;
  close(): Promise<void>;
}

export async function loadEngine(options: EngineOptions): Promise<Engine> {
  const { getLlama, LlamaChatSession } = await import('node-llama-cpp');
  const llama = await getLlama({ gpu: options.gpu, build: 'never', progressLogs: false });
  // Checked before the weights load: a large model on the CPU takes minutes and most memory.
  if (options.requireGpu && llama.gpu === false) {
    await llama.dispose();
    throw new Error(NO_GPU);
  }
  const model = await llama.loadModel({ modelPath: options.modelPath });
  const context = await model.createContext({
    threads: options.threads,
    ...(options.contextSize ? { contextSize: options.contextSize } : {}),
  });
  const name =
    model.fileInfo.metadata.general.name ?? options.modelPath.split(/[\\/]/).pop() ?? 'local';
  // One sequence: calls run one at a time, each on a fresh sequence (no shared history).
  let queue: Promise<unknown> = Promise.resolve();
  const run = async (request: EngineRequest): Promise<EngineAnswer> => {
    const grammar = await llama.createGrammarForJsonSchema(
      request.schema as Parameters<typeof llama.createGrammarForJsonSchema>[0],
    );
    const sequence = context.getSequence();
    try {
      const session = new LlamaChatSession({
        contextSequence: sequence,
        systemPrompt: request.system,
        autoDisposeSequence: false,
      });
      const text = await session.prompt(request.user, {
        grammar,
        temperature: 0,
        maxTokens: request.max_tokens,
      });
      session.dispose({ disposeSequence: false });
      return {
        text,
        prompt_tokens: sequence.tokenMeter.usedInputTokens,
        completion_tokens: sequence.tokenMeter.usedOutputTokens,
        model: name,
      };
    } finally {
      await sequence.dispose();
    }
  };
  return {
    gpu: llama.gpu,
    generate(request) {
      const next = queue.then(() => run(request));
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      await queue;
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}
