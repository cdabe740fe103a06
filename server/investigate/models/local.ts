// The local runtime as the server sees it: the GGUF file of SVC_MODEL (SVC_MODEL_LOCAL=1, no
// SVC_MODEL_URL) loaded in a child process by models/, and its state for status and doctor.
// Created by server/main.ts and main/main.ts and passed into startServer (style B.10), so
// the server and its tests never start a model themselves. On a host where llama.cpp finds
// no GPU the model is refused: the server still runs, and model calls fail as `refused`.
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { createLocalRuntime, ModelError } from '../../../models/index.js';
import type { ModelClient } from '../../../models/index.js';
import type { Config } from '../../config.js';
import { localModelFile } from './settings.js';

export interface LocalModelView {
  /** The file's name, never its path (GET /v1/status is public). */
  readonly file: string;
  readonly state: 'loading' | 'ready' | 'refused';
  /** The llama.cpp backend once loaded ('cuda', 'vulkan', 'metal'). */
  readonly gpu: string | null;
  /** Why it was refused (no GPU, no file, a load failure). */
  readonly reason: string | null;
}

export interface LocalModel {
  /** The transport of System 2 (and System 1 without SVC_S1_URL). */
  readonly client: ModelClient;
  view(): LocalModelView;
  /** Resolves (never rejects) once the model is loaded or refused, with the view then. */
  settled(): Promise<LocalModelView>;
  /** Ends the child process. */
  close(): Promise<void>;
}

export interface LocalModelOptions {
  /** Tests only: load on the CPU and do not refuse it (production always requires a GPU). */
  readonly cpu?: boolean;
}

/** Null when the configuration asks for no local model. */
export async function openLocalModel(
  config: Config,
  options: LocalModelOptions = {},
): Promise<LocalModel | null> {
  const file = localModelFile(config);
  if (file === null) return null;
  const name = basename(file);
  let view: LocalModelView = { file: name, state: 'loading', gpu: null, reason: null };
  const refuse = (reason: string): void => {
    // Load errors may quote the path; status shows the file's name only.
    view = { ...view, state: 'refused', reason: reason.split(file).join(name) };
  };
  if (!existsSync(file)) {
    refuse(`model file ${name} not found`);
    return {
      client: {
        call: (request) =>
          Promise.reject(
            new ModelError(
              'refused',
              `local model refused "${request.purpose}": ${view.reason ?? ''}`,
              {
                purpose: request.purpose,
                status: null,
              },
            ),
          ),
      },
      view: () => view,
      settled: async () => view,
      close: async () => undefined,
    };
  }
  const runtime = await createLocalRuntime({
    modelPath: file,
    gpu: options.cpu === true ? false : 'auto',
    requireGpu: options.cpu !== true,
  });
  const settled = runtime.ready().then(
    ({ gpu }) => {
      view = { ...view, state: 'ready', gpu: gpu === false ? null : gpu };
      return view;
    },
    (err: unknown) => {
      refuse(err instanceof Error ? err.message : String(err));
      return view;
    },
  );
  return {
    client: runtime,
    view: () => view,
    settled: () => settled,
    close: () => runtime.close(),
  };
}
