// Headless entry (npm start, containers): configuration from the environment, graceful
// stop on SIGTERM/SIGINT.
import { ConfigError, describeConfig, loadConfig } from './config.js';
import { openLocalModel, startServer } from './index.js';
import { createLogger } from './logger.js';
import { VERSION } from './version.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env, { version: VERSION });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  // SVC_MODEL_LOCAL=1 with a .gguf SVC_MODEL: loaded in a child process while the server
  // starts; refused (and said so) on a host without a GPU, the server runs on without it.
  const localModel = await openLocalModel(config);
  void localModel?.settled().then((v) => {
    if (v.state === 'refused')
      log.warn({ model: v.file, reason: v.reason }, 'local model refused: model calls fail');
    else log.info({ model: v.file, gpu: v.gpu }, 'local model loaded');
  });
  const server = await startServer(config, { log, env: process.env, localModel });
  // Every setting as it took effect, secrets masked: what an operator checks first.
  log.info(
    {
      url: server.url,
      data: config.dataDir,
      instance: config.instance,
      settings: describeConfig(process.env),
    },
    'service started',
  );
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => {
    stop('SIGTERM');
  });
  process.on('SIGINT', () => {
    stop('SIGINT');
  });
}

main().catch((err: unknown) => {
  process.stderr.write(
    `the service could not start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
