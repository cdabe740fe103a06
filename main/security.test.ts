// The pure rules behind main/security.ts (navigation.ts imports no electron).
import { describe, expect, it } from 'vitest';
import {
  configErrorText,
  consoleUrl,
  isExternalWebUrl,
  isPermissionAllowed,
  isSameOrigin,
} from './navigation.js';

const ORIGIN = 'http://127.0.0.1:8700';

describe('isSameOrigin', () => {
  it('accepts any path, query and fragment on the server origin', () => {
    expect(isSameOrigin('http://127.0.0.1:8700/', ORIGIN)).toBe(true);
    expect(isSameOrigin('http://127.0.0.1:8700/incidents?status=open#top', ORIGIN)).toBe(true);
    expect(isSameOrigin('http://127.0.0.1:8700/v1/status', `${ORIGIN}/`)).toBe(true);
  });

  it('accepts the origin given as a URL with a path', () => {
    expect(isSameOrigin('http://127.0.0.1:8700/a', 'http://127.0.0.1:8700/b/c')).toBe(true);
  });

  it('normalises default ports and host case', () => {
    expect(isSameOrigin('http://LOCALHOST/x', 'http://localhost:80')).toBe(true);
    expect(isSameOrigin('https://example.org:443/', 'https://example.org')).toBe(true);
  });

  it('refuses another port, scheme or host', () => {
    expect(isSameOrigin('http://127.0.0.1:8701/', ORIGIN)).toBe(false);
    expect(isSameOrigin('https://127.0.0.1:8700/', ORIGIN)).toBe(false);
    expect(isSameOrigin('http://localhost:8700/', ORIGIN)).toBe(false);
    expect(isSameOrigin('http://127.0.0.2:8700/', ORIGIN)).toBe(false);
    expect(isSameOrigin('https://example.org/', ORIGIN)).toBe(false);
  });

  it('is not fooled by look-alike hosts and credentials', () => {
    expect(isSameOrigin('http://127.0.0.1:8700.evil.example/', ORIGIN)).toBe(false);
    expect(isSameOrigin('http://127.0.0.1:8700@evil.example/', ORIGIN)).toBe(false);
    expect(isSameOrigin('http://evil.example/?http://127.0.0.1:8700/', ORIGIN)).toBe(false);
  });

  it('refuses opaque origins, even when both sides are opaque', () => {
    expect(isSameOrigin('file:///etc/passwd', ORIGIN)).toBe(false);
    expect(isSameOrigin('data:text/html,<h1>x</h1>', ORIGIN)).toBe(false);
    expect(isSameOrigin('about:blank', ORIGIN)).toBe(false);
    expect(isSameOrigin('javascript:alert(1)', ORIGIN)).toBe(false);
    expect(isSameOrigin('file:///a', 'file:///a')).toBe(false);
    expect(isSameOrigin('about:blank', 'about:blank')).toBe(false);
  });

  it('refuses what does not parse', () => {
    expect(isSameOrigin('', ORIGIN)).toBe(false);
    expect(isSameOrigin('/relative/path', ORIGIN)).toBe(false);
    expect(isSameOrigin('http://127.0.0.1:8700/', '')).toBe(false);
    expect(isSameOrigin('http://127.0.0.1:8700/', 'not a url')).toBe(false);
  });
});

describe('isExternalWebUrl', () => {
  it('accepts http and https only', () => {
    expect(isExternalWebUrl('https://example.org/runbook')).toBe(true);
    expect(isExternalWebUrl('http://grafana.internal:3000/d/x')).toBe(true);
    expect(isExternalWebUrl('file:///etc/passwd')).toBe(false);
    expect(isExternalWebUrl('javascript:alert(1)')).toBe(false);
    expect(isExternalWebUrl('smb://host/share')).toBe(false);
    expect(isExternalWebUrl('mailto:ops@example.org')).toBe(false);
    expect(isExternalWebUrl('not a url')).toBe(false);
  });
});

describe('isPermissionAllowed', () => {
  it('grants only clipboard-sanitized-write, and only to the server origin', () => {
    expect(isPermissionAllowed('clipboard-sanitized-write', `${ORIGIN}/incidents`, ORIGIN)).toBe(
      true,
    );
    expect(isPermissionAllowed('clipboard-sanitized-write', 'https://example.org/', ORIGIN)).toBe(
      false,
    );
    for (const p of [
      'clipboard-read',
      'notifications',
      'media',
      'geolocation',
      'openExternal',
      'unknown',
    ]) {
      expect(isPermissionAllowed(p, `${ORIGIN}/`, ORIGIN)).toBe(false);
    }
  });
});

describe('consoleUrl', () => {
  it('is always loopback, on the port the server listens on', () => {
    expect(consoleUrl('http://127.0.0.1:8700', 1)).toBe('http://127.0.0.1:8700/');
    expect(consoleUrl('http://localhost:9100/', 8700)).toBe('http://127.0.0.1:9100/');
    expect(consoleUrl('garbage', 8700)).toBe('http://127.0.0.1:8700/');
  });
});

describe('configErrorText', () => {
  it('names every problem', () => {
    const text = configErrorText(['SVC_PORT: "x" is not valid', 'SVC_FOO: unknown variable']);
    expect(text).toContain('SVC_PORT: "x" is not valid');
    expect(text).toContain('SVC_FOO: unknown variable');
  });
});
