// The public API of server/ for main/ (Electron) and server/main.ts (headless).
import type { Logger } from 'pino';
import { buildApp } from './compose/index.js';
import type { Config } from './config.js';
import { createLogger } from './logger.js';
import type { LocalModel } from './investigate/index.js';

export { loadConfig, ConfigError, type Config, type ConfigOverrides } from './config.js';
export { openLocalModel, type LocalModel } from './investigate/index.js';

export interface RunningServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startServer(
  config: Config,
  options: {
    log?: Logger;
    /** The environment secret references `{env}` read from (connectors). */
    env?: Readonly<Record<string, string | undefined>>;
    /**
     * The local model (openLocalModel), when the caller loaded one. The server owns it from
     * here: it is closed (its child process ended) when the server closes or fails to start.
     */
    localModel?: LocalModel | null;
  } = {},
): Promise<RunningServer> {
  const log = options.log ?? createLogger(config.logLevel);
  const local = options.localModel ?? null;
  const closeLocal = async (): Promise<void> => {
    await local?.close().catch((err: unknown) => {
      log.error({ err }, 'closing the local model failed');
    });
  };
  let built: Awaited<ReturnType<typeof buildApp>>;
  try {
    built = await buildApp(config, {
      log,
      ...(options.env && { env: options.env }),
      ...(local !== null && { localModel: local }),
    });
  } catch (err) {
    await closeLocal();
    throw err;
  }
  try {
    await built.app.listen({ port: config.http.port, host: config.http.bind });
  } catch (err) {
    await built.close();
    await closeLocal();
    throw err;
  }
  const address = built.app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.http.port;
  const host =
    config.http.bind === '0.0.0.0' || config.http.bind === '::' ? '127.0.0.1' : config.http.bind;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${String(port)}`,
    close: async () => {
      // The model goes after the server: nothing can call it any more.
      await built.close();
      await closeLocal();
    },
  };
}
