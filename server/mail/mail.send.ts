// Sending one mail: SMTP through nodemailer (starttls, ssl or none) or a JSON mail API over
// fetch. Every send has a deadline; errors are explained without any secret in them.
import { readCaFile } from '../connectors/index.js';
import nodemailer from 'nodemailer';
import type { Secret } from '../shared/secret.js';
import type { MailSettings } from './mail.settings.js';
import { readSecretRef } from './mail.secrets.js';

export interface SendResult {
  readonly ok: boolean;
  /** What happened, for people: the server's answer or why it failed. Never a secret. */
  readonly detail: string;
  readonly duration_ms: number;
}

export interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Every form of a secret that could be echoed back: plain, base64 (AUTH PLAIN/LOGIN). */
function scrubber(secrets: readonly string[]): (s: string) => string {
  const forms = secrets
    .filter((s) => s.length >= 3)
    .flatMap((s) => [s, Buffer.from(s).toString('base64'), encodeURIComponent(s)]);
  // A server may echo an AUTH blob (base64 of "\0user\0password") whose base64 does not
  // contain the password's own base64: decode every base64-looking word and test it too.
  const hides = (word: string): boolean => {
    const decoded = Buffer.from(word, 'base64').toString('latin1');
    return secrets.some((s) => s.length >= 3 && decoded.includes(s));
  };
  return (s) => {
    let out = s;
    for (const f of forms) out = out.split(f).join('***');
    out = out.replace(/[A-Za-z0-9+/]{8,}={0,2}/g, (w) => (hides(w) ? '***' : w));
    return out.replace(/\r?\n/g, ' ').slice(0, 500);
  };
}

function explainSmtp(err: unknown, timeoutS: number): string {
  const e = err as { code?: string; message?: string; responseCode?: number; response?: string };
  switch (e.code) {
    case 'EAUTH':
      return `the mail server refused the user name or password (${e.response ?? e.message ?? 'EAUTH'})`;
    case 'ETIMEDOUT':
    case 'ETIMEOUT':
      return `the mail server did not answer within ${String(timeoutS)} s`;
    case 'ECONNECTION':
    case 'ESOCKET':
    case 'ECONNREFUSED':
      return `could not talk to the mail server: ${e.message ?? e.code}`;
    case 'ETLS':
      return `TLS with the mail server failed: ${e.message ?? 'ETLS'}`;
    case 'EENVELOPE':
      return `the mail server refused the addresses: ${e.response ?? e.message ?? ''}`;
    default:
      return e.message ?? String(err);
  }
}

async function sendSmtp(
  s: NonNullable<MailSettings['smtp']>,
  password: Secret | null,
  mail: Mail,
  timeoutMs: number,
  timeoutS: number,
): Promise<string> {
  // Added to the system's CAs (as the mail connector does), not in place of them.
  const ca = readCaFile(s.ca_file === undefined ? {} : { ca_file: s.ca_file });
  const transport = nodemailer.createTransport({
    host: s.host,
    port: s.port,
    secure: s.security === 'ssl',
    requireTLS: s.security === 'starttls',
    ignoreTLS: s.security === 'none',
    ...(s.username !== undefined &&
      password !== null && { auth: { user: s.username, pass: password.reveal() } }),
    tls: { ...(ca !== undefined && { ca }), minVersion: 'TLSv1.2' },
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    logger: false,
    debug: false,
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const e = Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' });
        reject(e);
      }, timeoutMs);
    });
    const info = (await Promise.race([
      transport.sendMail({ from: s.from, to: mail.to, subject: mail.subject, text: mail.text }),
      deadline,
    ])) as { response?: string };
    return info.response ?? 'accepted';
  } catch (err) {
    throw new Error(explainSmtp(err, timeoutS));
  } finally {
    clearTimeout(timer);
    transport.close();
  }
}

async function sendApi(
  a: NonNullable<MailSettings['api']>,
  token: Secret,
  mail: Mail,
  timeoutMs: number,
  timeoutS: number,
): Promise<string> {
  let res: Response;
  try {
    res = await fetch(a.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.reveal()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from: a.from, to: mail.to, subject: mail.subject, text: mail.text }),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError')
      throw new Error(`the mail API did not answer within ${String(timeoutS)} s`);
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    throw new Error(`could not reach the mail API: ${cause ?? (err as Error).message}`);
  }
  const body = (await res.text().catch(() => '')).slice(0, 200);
  if (res.status === 401 || res.status === 403)
    throw new Error(`the mail API refused the token (HTTP ${String(res.status)})`);
  if (!res.ok) throw new Error(`the mail API answered HTTP ${String(res.status)}: ${body}`);
  return `the mail API answered HTTP ${String(res.status)}`;
}

/** Send one mail with the given settings; never throws, never reveals a secret. */
export async function sendMail(
  settings: MailSettings,
  env: Env,
  mail: Mail,
  now: () => number = Date.now,
): Promise<SendResult> {
  const started = now();
  const timeoutS = settings.timeout_s;
  const timeoutMs = timeoutS * 1000;
  const secrets: string[] = [];
  const done = (ok: boolean, detail: string): SendResult => ({
    ok,
    detail: scrubber(secrets)(detail),
    duration_ms: Math.max(0, now() - started),
  });
  try {
    if (settings.transport === 'smtp') {
      const s = settings.smtp;
      if (s === undefined) return done(false, 'the SMTP settings are missing');
      const password = s.password === undefined ? null : readSecretRef(s.password, env);
      if (password !== null) secrets.push(password.reveal());
      return done(true, await sendSmtp(s, password, mail, timeoutMs, timeoutS));
    }
    const a = settings.api;
    if (a === undefined) return done(false, 'the mail API settings are missing');
    const token = readSecretRef(a.token, env);
    secrets.push(token.reveal());
    return done(true, await sendApi(a, token, mail, timeoutMs, timeoutS));
  } catch (err) {
    return done(false, (err as Error).message);
  }
}
