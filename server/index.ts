// The public API of server/ for main/ (Electron) and server/main.ts (headless).
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { createLogger } from './logger.js';

export { loadConfig, ConfigError, type Config, type ConfigOverrides } from './config.js';

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
  } = {},
): Promise<RunningServer> {
  const log = options.log ?? createLogger(config.logLevel);
  const built = await buildApp(config, { log, ...(options.env && { env: options.env }) });
  try {
    await built.app.listen({ port: config.http.port, host: config.http.bind });
  } catch (err) {
    await built.close();
    throw err;
  }
  const address = built.app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.http.port;
  const host =
    config.http.bind === '0.0.0.0' || config.http.bind === '::' ? '127.0.0.1' : config.http.bind;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${String(port)}`,
    close: built.close,
  };
}
