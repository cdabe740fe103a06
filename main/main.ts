// Electron main process: the thin desktop shell (style guide B.2, B.10). It starts the same
// server that `npm start` runs, in this process, bound to loopback, with its data under the
// OS user data folder, and opens one window on it. It owns nothing else.
//
// The only file in main/ that reads process.env: it hands the environment to loadConfig
// unchanged, and the desktop defaults go in as overrides, never as env mutations (B.8).
import { join } from 'node:path';
import { app, dialog, type BrowserWindow } from 'electron';
import {
  ConfigError,
  loadConfig,
  openLocalModel,
  startServer,
  type Config,
  type RunningServer,
} from '../server/index.js';
import { configErrorText, consoleUrl } from './navigation.js';
import { installSecurity } from './security.js';
import { createWindow, focusWindow } from './window.js';

/** How long quitting waits for the server to close before giving up. */
const CLOSE_TIMEOUT_MS = 15_000;

let server: RunningServer | null = null;
let config: Config | null = null;
let url: string | null = null;
let mainWindow: BrowserWindow | null = null;
let closing = false;

function openWindow(): void {
  if (config === null || url === null) return;
  if (mainWindow !== null) {
    focusWindow(mainWindow);
    return;
  }
  const win = createWindow({ title: config.instance, url });
  win.on('closed', () => {
    mainWindow = null;
  });
  mainWindow = win;
}

async function start(): Promise<void> {
  config = loadConfig(process.env, {
    dataDir: join(app.getPath('userData'), 'data'),
    bind: '127.0.0.1',
    version: app.getVersion(),
  });
  // The local model (SVC_MODEL_LOCAL=1, a .gguf SVC_MODEL) runs in a child process that the
  // server owns and ends on close (before-quit); refused on a host without a GPU.
  const localModel = await openLocalModel(config);
  server = await startServer(config, { env: process.env, localModel });
  url = consoleUrl(server.url, config.http.port);
  installSecurity(new URL(url).origin);
  openWindow();
}

async function failStart(err: unknown): Promise<void> {
  if (err instanceof ConfigError) {
    dialog.showErrorBox('The configuration is not valid', configErrorText(err.problems));
  } else {
    const message = err instanceof Error ? err.message : String(err);
    dialog.showErrorBox('The service could not start', message);
  }
  console.error(err);
  const started = server;
  server = null;
  if (started !== null) await started.close().catch(() => undefined);
  app.exit(1);
}

function closeServer(running: RunningServer): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`the server did not close within ${String(CLOSE_TIMEOUT_MS / 1000)} s`));
    }, CLOSE_TIMEOUT_MS);
  });
  return Promise.race([running.close(), timeout]).finally(() => {
    clearTimeout(timer);
  });
}

if (!app.requestSingleInstanceLock()) {
  // Another instance owns the data folder and the port: it focuses its window, we leave.
  app.quit();
} else {
  app.on('second-instance', () => {
    openWindow();
  });

  app.on('window-all-closed', () => {
    // macOS keeps the app (and the server) running until Cmd+Q, as its apps do.
    if (process.platform !== 'darwin') app.quit();
  });

  app.on('activate', () => {
    openWindow();
  });

  app.on('before-quit', (event) => {
    const running = server;
    if (running === null) return;
    // Hold the quit once, close the server (ledger, database, listeners), then exit.
    // app.exit() does not emit before-quit again; a second quit while closing just waits.
    event.preventDefault();
    if (closing) return;
    closing = true;
    closeServer(running).then(
      () => {
        app.exit(0);
      },
      (err: unknown) => {
        console.error('closing the server failed:', err);
        app.exit(1);
      },
    );
  });

  void app.whenReady().then(start).catch(failStart);
}
