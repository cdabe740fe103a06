// The teams connector kind: a Microsoft Teams incoming webhook (an Office 365 connector URL
// or a Power Automate "Workflows" URL). Both take a message with an Adaptive Card attached;
// the two links are Action.OpenUrl buttons. The URL (key in its path or `sig` query) is the
// credential, so it is a secret setting and errors show its origin only.
//
// Health posts nothing: a Workflows URL accepts any POST (202) and runs the flow, so there
// is no harmless message. It sends HEAD to the URL's origin (never the secret path), which
// proves name resolution, the TCP connection, TLS and an HTTP answer; whether the key is
// still valid shows at the first delivery, which fails with the service's answer.
import type { ConnectorClient, ConnectorKind, HealthResult, ResolvedSettings } from '../kind.js';
import {
  approvalFacts,
  approvalFooter,
  approvalHeading,
  parseApprovalArgs,
  parseNotificationArgs,
  type ApprovalMessage,
  type Delivery,
  type NotificationMessage,
} from '../../channels/index.js';
import { networkErrorText } from './settings.js';
import {
  answerText,
  expectAccepted,
  postWebhook,
  readSecretWebhookUrl,
  type WebhookTarget,
} from './webhook-post.js';

const card = (body: unknown[], actions: unknown[] = []): Record<string, unknown> => ({
  type: 'message',
  attachments: [
    {
      contentType: 'application/vnd.microsoft.card.adaptive',
      contentUrl: null,
      content: {
        $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
        type: 'AdaptiveCard',
        version: '1.4',
        body,
        ...(actions.length > 0 && { actions }),
      },
    },
  ],
});

const textBlock = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'TextBlock',
  text,
  wrap: true,
  ...extra,
});

/** A message with an Adaptive Card: heading, facts, summary, two link buttons, footer. */
export function teamsApprovalPayload(m: ApprovalMessage): Record<string, unknown> {
  return card(
    [
      textBlock(approvalHeading(m), { size: 'Medium', weight: 'Bolder' }),
      textBlock(approvalFacts(m), { isSubtle: true, spacing: 'None' }),
      textBlock(m.summary),
      textBlock(approvalFooter(m), { size: 'Small', isSubtle: true }),
    ],
    [
      { type: 'Action.OpenUrl', title: 'Approve', url: m.approve_url, style: 'positive' },
      { type: 'Action.OpenUrl', title: 'Deny', url: m.deny_url, style: 'destructive' },
    ],
  );
}

const notificationPayload = (n: NotificationMessage) =>
  card([textBlock(n.title, { size: 'Medium', weight: 'Bolder' }), textBlock(n.text)]);

/**
 * Office 365 connectors answer HTTP 200 with an error text when delivery failed
 * ("Webhook message delivery failed with error: …"); "1" or an empty body is success.
 */
function deliveredOrThrow(status: number, body: string, what: string, t: WebhookTarget): void {
  if (status >= 200 && status < 300 && /failed|error/i.test(body) && body.trim() !== '1')
    throw new Error(
      `${what}: ${t.label} did not deliver the message (${body.trim().slice(0, 160)})`,
    );
}

function createTeamsClient(settings: ResolvedSettings): ConnectorClient {
  const target = readSecretWebhookUrl(settings, 'url');

  async function deliver(
    payload: Record<string, unknown>,
    what: string,
    signal: AbortSignal,
  ): Promise<Delivery> {
    const answer = await postWebhook(target, JSON.stringify(payload), {}, what, signal);
    expectAccepted(answer, what, target);
    deliveredOrThrow(answer.status, answer.body, what, target);
    return { delivered: true, detail: `posted to ${target.label} (${answerText(answer)})` };
  }

  async function health(signal: AbortSignal): Promise<HealthResult> {
    const started = performance.now();
    let status: number;
    try {
      const res = await fetch(target.url.origin, { method: 'HEAD', redirect: 'manual', signal });
      status = res.status;
      await res.body?.cancel().catch(() => undefined);
    } catch (err) {
      signal.throwIfAborted();
      throw new Error(`health: cannot reach ${target.label}: ${networkErrorText(err)}`);
    }
    const duration = Math.round(performance.now() - started);
    return {
      ok: true,
      detail: `${target.label} answers (HTTP ${String(status)} to HEAD /); the webhook key is proven by the first delivery`,
      duration_ms: duration,
    };
  }

  return {
    health,
    async call(op, args, signal) {
      if (op === 'send_approval')
        return deliver(teamsApprovalPayload(parseApprovalArgs(args)), 'send_approval', signal);
      if (op === 'send')
        return deliver(notificationPayload(parseNotificationArgs(args)), 'send', signal);
      throw new Error(`teams has no operation ${JSON.stringify(op)}`);
    },
  };
}

export const teamsKind: ConnectorKind = {
  kind: 'teams',
  title: 'Microsoft Teams',
  description:
    'Posts approval requests (an Adaptive Card with approve and deny buttons) and notifications to a Teams channel through an incoming webhook or a Workflows URL.',
  capabilities: ['notify'],
  settings: [
    {
      name: 'url',
      type: 'secret',
      required: true,
      description:
        'The incoming webhook or Workflows ("When a Teams webhook request is received") URL. It is the credential: anyone with it can post.',
    },
  ],
  operations: ['send_approval', 'send'],
  create: createTeamsClient,
};
