// Headless entry (npm start, containers): configuration from the environment, graceful
// stop on SIGTERM/SIGINT.
import { ConfigError, describeConfig, loadConfig } from './config.js';
import { startServer } from './index.js';
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
  const server = await startServer(config, { log, env: process.env });
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
