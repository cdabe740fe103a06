// Pure URL and permission rules of the desktop window. No electron import here, so the unit
// tests run under plain Node; main/security.ts wires these rules into Electron's events.

/** The only permission the console may be granted: writing (sanitized) text to the clipboard. */
export const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * True when `url` has exactly the origin (scheme, host, port) of `origin`. `origin` may be
 * given as an origin or as any URL on it ('http://127.0.0.1:8700/' works). Unparsable input
 * and opaque origins (data:, file:, about:blank, blob: of another origin …) are never the same.
 */
export function isSameOrigin(url: string, origin: string): boolean {
  const a = parse(url);
  const b = parse(origin);
  if (a === null || b === null) return false;
  if (a.origin === 'null' || b.origin === 'null') return false;
  return a.origin === b.origin;
}

/** True for the links that may be handed to the system browser: http and https only. */
export function isExternalWebUrl(url: string): boolean {
  const u = parse(url);
  return u !== null && (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
}

/** Permissions are granted only from the server's own origin, and only the allowed ones. */
export function isPermissionAllowed(
  permission: string,
  requestingUrl: string,
  origin: string,
): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && isSameOrigin(requestingUrl, origin);
}

/** The console address for a listening server URL: always loopback, with the server's port. */
export function consoleUrl(serverUrl: string, fallbackPort: number): string {
  const u = parse(serverUrl);
  const port = u !== null && u.port !== '' ? u.port : String(fallbackPort);
  return `http://127.0.0.1:${port}/`;
}

/** The text of the error box shown when the configuration is not valid. */
export function configErrorText(problems: readonly string[]): string {
  return [
    'The configuration is not valid. Fix these settings and start again:',
    '',
    ...problems.map((p) => `• ${p}`),
  ].join('\n');
}
