// The webhook connector kind: a generic JSON POST to a receiver of the operator's own
// (a ticketing bridge, a paging service, a chat bot). With `secret` set, every body carries
// `x-svc-signature: sha256=<hex>`, the HMAC-SHA256 of the exact body bytes under that secret,
// so the receiver can tell our messages from anyone else's.
//
// Bodies:
//   approval.requested {type, request_id, title, summary, risk, service, approve_url,
//                       deny_url, expires_at}
//   notification       {type, title, text}
//   channel.ping       {type, sent_at}: the health check; a receiver answers 2xx and
//                       ignores types it does not know.
// Any 2xx is delivery; redirects are not followed.
import { createHmac } from 'node:crypto';
import type { ConnectorClient, ConnectorKind, HealthResult, ResolvedSettings } from '../kind.js';
import { parseApprovalArgs, parseNotificationArgs, type Delivery } from '../../channels/index.js';
import { parseHeaderLines } from './http.js';
import { readSecret, readStringList } from './settings.js';
import { answerText, expectAccepted, postWebhook, readPlainWebhookUrl } from './webhook-post.js';

export const SIGNATURE_HEADER = 'x-svc-signature';
export const EVENT_HEADER = 'x-svc-event';

/** `sha256=<hex>` of the body under the secret: what a receiver recomputes and compares. */
export const signatureOf = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;

/** Headers the kind sets itself; a `headers` line may not replace them. */
const RESERVED = new Set([
  'content-type',
  'content-length',
  'host',
  SIGNATURE_HEADER,
  EVENT_HEADER,
]);

function createWebhookClient(settings: ResolvedSettings): ConnectorClient {
  const target = readPlainWebhookUrl(settings, 'url');
  const secret = readSecret(settings, 'secret');
  const extra = parseHeaderLines(readStringList(settings, 'headers'));
  for (const name of Object.keys(extra))
    if (RESERVED.has(name)) throw new Error(`setting headers must not set ${name}`);

  /** Built per request, so the secret is used only to sign the outgoing body. */
  async function post(type: string, data: Record<string, unknown>, signal: AbortSignal) {
    const body = JSON.stringify({ type, ...data });
    const headers: Record<string, string> = { ...extra, [EVENT_HEADER]: type };
    if (secret !== undefined) headers[SIGNATURE_HEADER] = signatureOf(secret.reveal(), body);
    const what = type === 'channel.ping' ? 'health' : type;
    return postWebhook(target, body, headers, what, signal, secret ? [secret.reveal()] : []);
  }

  async function deliver(
    type: string,
    data: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Delivery> {
    const answer = await post(type, data, signal);
    expectAccepted(answer, type, target);
    return {
      delivered: true,
      detail: `accepted by ${target.label} (${answerText(answer)})${secret === undefined ? ', unsigned' : ''}`,
    };
  }

  async function health(signal: AbortSignal): Promise<HealthResult> {
    const answer = await post('channel.ping', { sent_at: new Date().toISOString() }, signal);
    const ok = answer.status >= 200 && answer.status < 300;
    return {
      ok,
      detail: ok
        ? `${target.label} accepted a ${secret === undefined ? '' : 'signed '}ping (${answerText(answer)})`
        : `${target.label} refused the ping (${answerText(answer)})`,
      duration_ms: answer.duration_ms,
    };
  }

  return {
    health,
    async call(op, args, signal) {
      if (op === 'send_approval') {
        const m = parseApprovalArgs(args);
        return deliver('approval.requested', { ...m }, signal);
      }
      if (op === 'send') return deliver('notification', { ...parseNotificationArgs(args) }, signal);
      throw new Error(`webhook has no operation ${JSON.stringify(op)}`);
    },
  };
}

export const webhookKind: ConnectorKind = {
  kind: 'webhook',
  title: 'Webhook',
  description:
    'Posts approval requests and notifications as JSON to a receiver of your own, signed with HMAC-SHA256 (x-svc-signature) when a secret is set.',
  capabilities: ['notify'],
  settings: [
    {
      name: 'url',
      type: 'url',
      required: true,
      description:
        'The http:// or https:// URL that receives the POSTs. Redirects are not followed.',
    },
    {
      name: 'secret',
      type: 'secret',
      required: false,
      description:
        'Key of the HMAC-SHA256 signature sent as "x-svc-signature: sha256=<hex of the body\'s HMAC>". Without it, messages are unsigned.',
    },
    {
      name: 'headers',
      type: 'string_list',
      required: false,
      description:
        'Extra request headers, one "Name: value" per line (not secret; use the secret for authenticity).',
    },
  ],
  operations: ['send_approval', 'send'],
  create: createWebhookClient,
};
