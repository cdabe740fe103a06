// The one console window. It loads the server's own address like any remote browser would
// (style guide B.2); there is no preload and no IPC, and Node stays out of the page.
import { BrowserWindow } from 'electron';

export interface WindowOptions {
  /** Window title: the instance name (SVC_INSTANCE, host name by default). */
  readonly title: string;
  /** The console address, http://127.0.0.1:<port>/. */
  readonly url: string;
}

export const MIN_WIDTH = 1024;
export const MIN_HEIGHT = 640;

export function createWindow(options: WindowOptions): BrowserWindow {
  const win = new BrowserWindow({
    title: options.title,
    width: 1440,
    height: 900,
    minWidth: MIN_WIDTH,
    minHeight: MIN_HEIGHT,
    show: false,
    webPreferences: {
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
      webSecurity: true,
      spellcheck: false,
    },
  });
  // Keep the instance name in the title bar, so two installs side by side stay apart.
  win.on('page-title-updated', (event) => {
    event.preventDefault();
  });
  win.once('ready-to-show', () => {
    win.show();
  });
  win.loadURL(options.url).catch((err: unknown) => {
    console.error(`could not load the console at ${options.url}:`, err);
    // ready-to-show may never come after a failed load; show the window rather than nothing.
    if (!win.isDestroyed()) win.show();
  });
  return win;
}

/** Bring a window to the front, restoring it when minimised (second instance started). */
export function focusWindow(win: BrowserWindow): void {
  if (win.isMinimized()) win.restore();
  if (!win.isVisible()) win.show();
  win.focus();
}
