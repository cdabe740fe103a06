// What the webhook kinds (slack, teams, webhook) share: a webhook URL that may itself be the
// credential (Slack, Mattermost and Teams put the key in the path or query), one JSON POST
// with a bounded answer, redirects refused (the body and its signature never travel to
// another address), and errors that name the URL's origin only, never its path or query.
import type { ResolvedSettings } from '../kind.js';
import { clipAnswer, scrub } from '../../channels/index.js';
import { networkErrorText, readBodyLimited, readSecret, readString } from './settings.js';

/** A webhook's answer is a short acknowledgement; more than this is refused. */
export const MAX_WEBHOOK_ANSWER_BYTES = 64 * 1024;

export interface WebhookTarget {
  readonly url: URL;
  /** what errors and details show: the origin, never the path or query */
  readonly label: string;
  /** strings that must never appear in an error or detail */
  readonly secrets: readonly string[];
}

function parseWebhookUrl(value: string, name: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`setting ${name} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`setting ${name} must be an http:// or https:// URL`);
  if (url.username !== '' || url.password !== '')
    throw new Error(`setting ${name} must not carry credentials`);
  return url;
}

/** The URL from a secret setting (the whole URL is the credential). */
export function readSecretWebhookUrl(settings: ResolvedSettings, name = 'url'): WebhookTarget {
  const secret = readSecret(settings, name);
  if (secret === undefined) throw new Error(`setting ${name} is required`);
  const url = parseWebhookUrl(secret.reveal().trim(), name);
  const secrets = [secret.reveal(), url.href, url.pathname, url.search].filter((s) => s.length > 1);
  return { url, label: url.origin, secrets };
}

/** The URL from a plain setting (the generic webhook: its secret is the HMAC key). */
export function readPlainWebhookUrl(settings: ResolvedSettings, name = 'url'): WebhookTarget {
  const value = readString(settings, name);
  if (value === undefined) throw new Error(`setting ${name} is required`);
  const url = parseWebhookUrl(value, name);
  return { url, label: url.origin, secrets: [] };
}

export interface WebhookAnswer {
  readonly status: number;
  readonly body: string;
  readonly duration_ms: number;
}

/**
 * POST `body` as JSON. Answers any HTTP status (the caller judges it) except a redirect,
 * which is an error; a network failure is an error naming the origin. Honours `signal`.
 */
export async function postWebhook(
  target: WebhookTarget,
  body: string,
  headers: Readonly<Record<string, string>>,
  what: string,
  signal: AbortSignal,
  extraSecrets: readonly string[] = [],
): Promise<WebhookAnswer> {
  const secrets = [...target.secrets, ...extraSecrets];
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(target.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        accept: 'application/json, text/plain;q=0.9, */*;q=0.1',
        'user-agent': 'svc-channel',
        ...headers,
      },
      body,
      redirect: 'manual',
      signal,
    });
  } catch (err) {
    signal.throwIfAborted();
    throw new Error(
      scrub(`${what}: cannot reach ${target.label}: ${networkErrorText(err)}`, secrets),
    );
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel().catch(() => undefined);
    throw new Error(
      `${what}: ${target.label} redirects (HTTP ${String(res.status)}); redirects are not followed, set the final address`,
    );
  }
  let answer: string;
  try {
    answer = await readBodyLimited(res, MAX_WEBHOOK_ANSWER_BYTES, what);
  } catch (err) {
    signal.throwIfAborted();
    throw new Error(scrub((err as Error).message, secrets));
  }
  return {
    status: res.status,
    body: scrub(answer, secrets),
    duration_ms: Math.round(performance.now() - started),
  };
}

/** "HTTP 500: <clipped answer>" for errors and details. */
export const answerText = (a: WebhookAnswer): string =>
  a.body.trim() === ''
    ? `HTTP ${String(a.status)}`
    : `HTTP ${String(a.status)}: ${clipAnswer(a.body)}`;

/** Refuses an answer outside 2xx with an error naming the origin and what came back. */
export function expectAccepted(a: WebhookAnswer, what: string, target: WebhookTarget): void {
  if (a.status < 200 || a.status > 299)
    throw new Error(`${what}: ${target.label} refused the message (${answerText(a)})`);
}
