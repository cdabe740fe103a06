// Locks the window to the server's origin (style guide B.2): no new windows, no navigation
// elsewhere, no webviews, and no permissions except writing to the clipboard. Links to other
// http(s) sites open in the system browser; every other scheme is dropped.
import { app, session, shell, type WebContents } from 'electron';
import { isExternalWebUrl, isPermissionAllowed, isSameOrigin } from './navigation.js';

function openInBrowser(url: string): void {
  if (!isExternalWebUrl(url)) return;
  shell.openExternal(url).catch((err: unknown) => {
    console.error(`could not open ${url} in the system browser:`, err);
  });
}

function guardContents(contents: WebContents, origin: string): void {
  // window.open and target=_blank: never a new Electron window.
  contents.setWindowOpenHandler(({ url }) => {
    openInBrowser(url);
    return { action: 'deny' };
  });
  // A link clicked inside the console that leaves the server: stay, open it outside.
  contents.on('will-navigate', (event, url) => {
    if (isSameOrigin(url, origin)) return;
    event.preventDefault();
    openInBrowser(url);
  });
  // A redirect away from the server is refused without opening anything.
  contents.on('will-redirect', (event, url) => {
    if (!isSameOrigin(url, origin)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
  });
}

/**
 * Install the rules for every web contents created from now on. Call once, after the app is
 * ready and before the first window is created. `origin` is the server's, e.g.
 * 'http://127.0.0.1:8700'.
 */
export function installSecurity(origin: string): void {
  app.on('web-contents-created', (_event, contents) => {
    guardContents(contents, origin);
  });
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(isPermissionAllowed(permission, details.requestingUrl, origin));
  });
  ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    isPermissionAllowed(permission, requestingOrigin, origin),
  );
}
