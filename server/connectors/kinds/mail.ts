// The mail connector kind: approval requests and notifications by SMTP, through nodemailer.
// The approval mail carries the two single-use links (text and HTML parts). Health is
// nodemailer's verify(): connect, EHLO, STARTTLS when asked, and AUTH when a username is
// set; nothing is sent. A transport is built per call, so the password is revealed only
// into that call's options; nodemailer's own logger stays off.
//
// nodemailer takes no AbortSignal: when the signal fires, the call is answered at once and
// the transport closed; a verify() connection still open ends at its own socket timeouts.
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { ConnectorClient, ConnectorKind, HealthResult, ResolvedSettings } from '../kind.js';
import {
  approvalFacts,
  approvalFooter,
  approvalHeading,
  approvalText,
  parseApprovalArgs,
  parseNotificationArgs,
  scrub,
  type ApprovalMessage,
  type Delivery,
} from '../../channels/index.js';
import {
  elapsedMs,
  readInteger,
  readSecret,
  readString,
  readStringList,
  readCaFile,
} from './settings.js';

const SECURITY = ['starttls', 'ssl', 'none'] as const;
type Security = (typeof SECURITY)[number];
const DEFAULT_PORT: Record<Security, number> = { starttls: 587, ssl: 465, none: 25 };

/** An address or "Name <address>"; no line breaks, one @ in the address part. */
const ADDRESS = /^(?:[^<>\r\n]*<)?[^\s<>@]+@[^\s<>@]+>?$/;

const escapeHtml = (s: string): string =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/** The HTML part: the same words as the text part, the links as two buttons. */
export function approvalHtml(m: ApprovalMessage): string {
  const button = (href: string, label: string, colour: string) =>
    `<a href="${escapeHtml(href)}" style="display:inline-block;padding:10px 18px;margin-right:12px;border-radius:4px;background:${colour};color:#ffffff;text-decoration:none;font-weight:bold">${label}</a>`;
  return [
    '<!doctype html><html><body style="font-family:sans-serif;line-height:1.4">',
    `<h2 style="margin:0 0 4px">${escapeHtml(approvalHeading(m))}</h2>`,
    `<p style="margin:0 0 12px;color:#555">${escapeHtml(approvalFacts(m))}</p>`,
    `<p style="white-space:pre-wrap">${escapeHtml(m.summary)}</p>`,
    `<p>${button(m.approve_url, 'Approve', '#1a7f37')}${button(m.deny_url, 'Deny', '#b42318')}</p>`,
    `<p style="font-size:12px;color:#666">${escapeHtml(approvalFooter(m))}</p>`,
    '</body></html>',
  ].join('\n');
}

function readAddress(settings: ResolvedSettings, name: string): string {
  const value = readString(settings, name);
  if (value === undefined) throw new Error(`setting ${name} is required`);
  if (!ADDRESS.test(value.trim())) throw new Error(`setting ${name} is not a mail address`);
  return value.trim();
}

/** Answer when `work` settles or the signal fires, whichever is first. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, onAbort: () => void): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      onAbort();
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', abort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

function createMailClient(settings: ResolvedSettings): ConnectorClient {
  const host = readString(settings, 'host');
  if (host === undefined) throw new Error('setting host is required');
  if (!/^[A-Za-z0-9.:[\]_-]+$/.test(host)) throw new Error('setting host is not a host name');
  const security = (readString(settings, 'security') ?? 'starttls') as Security;
  if (!SECURITY.includes(security))
    throw new Error(`setting security must be one of ${SECURITY.join(', ')}`);
  const port = readInteger(settings, 'port', DEFAULT_PORT[security], 1, 65_535);
  const username = readString(settings, 'username');
  const password = readSecret(settings, 'password');
  if (password !== undefined && username === undefined)
    throw new Error('setting password needs username');
  const from = readAddress(settings, 'from');
  const to = readStringList(settings, 'to').map((a) => a.trim());
  if (to.length === 0) throw new Error('setting to needs at least one address');
  to.forEach((a, i) => {
    if (!ADDRESS.test(a))
      throw new Error(`setting to: line ${String(i + 1)} is not a mail address`);
  });
  const ca = readCaFile(settings);
  const where = `SMTP ${host}:${String(port)}`;
  const secrets = () => [password?.reveal()];

  /** Built per call, so the password is revealed only into this transport's options. */
  function transport() {
    // forceAuth is nodemailer's (smtp-transport), missing from @types/nodemailer.
    const options: SMTPTransport.Options & { forceAuth?: boolean } = {
      host,
      port,
      secure: security === 'ssl',
      requireTLS: security === 'starttls',
      ignoreTLS: security === 'none',
      tls: { minVersion: 'TLSv1.2', ...(ca !== undefined && { ca }) },
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
      dnsTimeout: 10_000,
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
      debug: false,
    };
    // forceAuth: a server that offers no AUTH fails the call instead of being sent to
    // without the configured login (nodemailer would skip AUTH silently).
    if (username !== undefined) {
      options.auth = { user: username, pass: password?.reveal() ?? '' };
      options.forceAuth = true;
    }
    return nodemailer.createTransport(options);
  }

  const failure = (what: string, err: unknown): Error => {
    const e = err as Error & { code?: string };
    const code = typeof e.code === 'string' && !e.message.includes(e.code) ? ` (${e.code})` : '';
    return new Error(scrub(`${what}: ${where}: ${e.message}${code}`, secrets()));
  };

  async function send(
    mail: { subject: string; text: string; html?: string; requestId?: string },
    what: string,
    signal: AbortSignal,
  ): Promise<Delivery> {
    const t = transport();
    try {
      const info = await untilAborted(
        t.sendMail({
          from,
          to: [...to],
          subject: mail.subject,
          text: mail.text,
          ...(mail.html !== undefined && { html: mail.html }),
          headers: {
            'Auto-Submitted': 'auto-generated',
            ...(mail.requestId !== undefined && { 'X-Svc-Request': mail.requestId }),
          },
        }),
        signal,
        () => {
          t.close();
        },
      );
      const accepted = info.accepted.length;
      const rejected = info.rejected.map(String);
      if (accepted === 0)
        throw new Error(`${what}: ${where} accepted no recipient (${info.response})`);
      return {
        delivered: true,
        detail: `${where} accepted it for ${String(accepted)} of ${String(to.length)} recipients${rejected.length > 0 ? `, refused ${rejected.join(', ')}` : ''} (${info.response})`,
      };
    } catch (err) {
      signal.throwIfAborted();
      if (err instanceof Error && err.message.startsWith(`${what}: ${where}`))
        throw new Error(scrub(err.message, secrets()));
      throw failure(what, err);
    } finally {
      t.close();
    }
  }

  async function health(signal: AbortSignal): Promise<HealthResult> {
    const started = performance.now();
    const t = transport();
    try {
      await untilAborted(t.verify(), signal, () => {
        t.close();
      });
    } catch (err) {
      signal.throwIfAborted();
      throw failure('health', err);
    } finally {
      t.close();
    }
    const how = security === 'ssl' ? 'TLS' : security === 'starttls' ? 'STARTTLS' : 'no TLS';
    const auth = username === undefined ? 'no AUTH' : `AUTH as ${username}`;
    return {
      ok: true,
      detail: `${where} answered EHLO (${how}, ${auth})`,
      duration_ms: elapsedMs(started),
    };
  }

  return {
    health,
    async call(op, args, signal) {
      if (op === 'send_approval') {
        const m = parseApprovalArgs(args);
        return send(
          {
            subject: approvalHeading(m),
            text: approvalText(m),
            html: approvalHtml(m),
            requestId: m.request_id,
          },
          'send_approval',
          signal,
        );
      }
      if (op === 'send') {
        const n = parseNotificationArgs(args);
        return send({ subject: n.title, text: `${n.text}\n` }, 'send', signal);
      }
      throw new Error(`mail has no operation ${JSON.stringify(op)}`);
    },
  };
}

export const mailKind: ConnectorKind = {
  kind: 'mail',
  title: 'Mail (SMTP)',
  description:
    'Sends approval requests (with single-use approve and deny links) and notifications by mail through an SMTP server.',
  capabilities: ['notify'],
  settings: [
    {
      name: 'host',
      type: 'string',
      required: true,
      description: 'The SMTP server (relay or submission host).',
    },
    {
      name: 'port',
      type: 'integer',
      required: false,
      minimum: 1,
      maximum: 65_535,
      description: 'Default 587 with starttls, 465 with ssl, 25 with none.',
    },
    {
      name: 'security',
      type: 'string',
      required: false,
      default: 'starttls',
      description:
        'starttls (upgrade required; refuses a server without it), ssl (TLS from the first byte) or none (plain text: only for a relay on the same host or network; a password then travels unencrypted).',
    },
    {
      name: 'username',
      type: 'string',
      required: false,
      description: 'User for SMTP AUTH; without it, no AUTH is attempted.',
    },
    {
      name: 'password',
      type: 'secret',
      required: false,
      description: 'Password for SMTP AUTH (with username).',
    },
    {
      name: 'from',
      type: 'string',
      required: true,
      description: 'Sender address, e.g. "Incident response <svc@example.com>".',
    },
    {
      name: 'to',
      type: 'string_list',
      required: true,
      description: 'Recipient addresses, one per line.',
    },
    {
      name: 'ca_file',
      type: 'string',
      required: false,
      description:
        'Absolute path of a PEM file with CA certificates to trust besides the system ones (an in-house CA).',
    },
  ],
  operations: ['send_approval', 'send'],
  create: createMailClient,
};
