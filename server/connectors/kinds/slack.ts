// The slack connector kind: an incoming webhook of Slack or Mattermost. The webhook URL is
// the credential, so it is a secret setting, and errors show its origin only.
//
// Slack renders Block Kit (`blocks`: the two links as buttons); Mattermost ignores blocks
// and uses Markdown links in `text`, which Slack writes differently (`<url|label>`), so the
// `flavour` setting picks the text form.
//
// Health posts `{}`: a message with no text, which neither product posts. Slack answers
// 400 `no_text` and Mattermost 400 "No text specified" (id web.incoming_webhook.text.app_error)
// only when the URL names a live webhook, so that answer proves the URL without a message
// in the channel; a removed or wrong webhook answers 404 `no_service`, 403 `invalid_token`,
// 410 `channel_is_archived` or Mattermost's 400 "Invalid webhook".
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
import { readString } from './settings.js';
import {
  answerText,
  expectAccepted,
  postWebhook,
  readSecretWebhookUrl,
  type WebhookAnswer,
} from './webhook-post.js';

const FLAVOURS = ['slack', 'mattermost'] as const;
type Flavour = (typeof FLAVOURS)[number];

/** Slack mrkdwn: &, < and > are control characters. */
const mrkdwn = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Markdown (Mattermost): keep text from turning into links, images or headings. */
const markdown = (s: string): string => s.replace(/([\\`*_[\]()#<>!|~])/g, '\\$1');

const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** The Slack form: blocks with two link buttons, and mrkdwn text for notifications. */
export function slackApprovalPayload(m: ApprovalMessage): Record<string, unknown> {
  return {
    text: mrkdwn(`${approvalHeading(m)} (${approvalFacts(m)})`),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: clip(approvalHeading(m), 150) } },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: clip(`*${mrkdwn(approvalFacts(m))}*\n\n${mrkdwn(m.summary)}`, 3000),
        },
      },
      {
        type: 'actions',
        block_id: 'approval',
        elements: [
          {
            type: 'button',
            action_id: 'approve',
            style: 'primary',
            text: { type: 'plain_text', text: 'Approve' },
            url: m.approve_url,
          },
          {
            type: 'button',
            action_id: 'deny',
            style: 'danger',
            text: { type: 'plain_text', text: 'Deny' },
            url: m.deny_url,
          },
        ],
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: mrkdwn(approvalFooter(m)) }] },
    ],
  };
}

/** The Mattermost form: Markdown text with the two links. */
export function mattermostApprovalPayload(m: ApprovalMessage): Record<string, unknown> {
  return {
    text: [
      `#### ${markdown(approvalHeading(m))}`,
      `**${markdown(approvalFacts(m))}**`,
      '',
      markdown(m.summary),
      '',
      `[Approve](${m.approve_url}) · [Deny](${m.deny_url})`,
      '',
      `_${markdown(approvalFooter(m))}_`,
    ].join('\n'),
  };
}

function notificationPayload(flavour: Flavour, n: NotificationMessage): Record<string, unknown> {
  return flavour === 'slack'
    ? { text: `*${mrkdwn(n.title)}*\n${mrkdwn(n.text)}` }
    : { text: `#### ${markdown(n.title)}\n${markdown(n.text)}` };
}

/** Slack's and Mattermost's answers to a message without text. */
const NO_TEXT = /no_text|incoming_webhook\.text\.app_error|no text specified/i;

function createSlackClient(settings: ResolvedSettings): ConnectorClient {
  const target = readSecretWebhookUrl(settings, 'url');
  const flavour = (readString(settings, 'flavour') ?? 'slack') as Flavour;
  if (!FLAVOURS.includes(flavour))
    throw new Error(`setting flavour must be one of ${FLAVOURS.join(', ')}`);
  const channel = readString(settings, 'channel');
  const username = readString(settings, 'username');
  const extras = {
    ...(channel !== undefined && { channel }),
    ...(username !== undefined && { username }),
  };

  async function deliver(
    payload: Record<string, unknown>,
    what: string,
    signal: AbortSignal,
  ): Promise<Delivery> {
    const answer = await postWebhook(
      target,
      JSON.stringify({ ...payload, ...extras }),
      {},
      what,
      signal,
    );
    expectAccepted(answer, what, target);
    return { delivered: true, detail: `posted to ${target.label} (${answerText(answer)})` };
  }

  async function health(signal: AbortSignal): Promise<HealthResult> {
    const answer: WebhookAnswer = await postWebhook(target, '{}', {}, 'health', signal);
    const ok = (answer.status === 400 && NO_TEXT.test(answer.body)) || answer.status < 300;
    return {
      ok,
      detail: ok
        ? `webhook at ${target.label} is live (${answerText(answer)} to a message without text)`
        : `webhook at ${target.label} refused (${answerText(answer)}): removed, wrong or its channel archived`,
      duration_ms: answer.duration_ms,
    };
  }

  return {
    health,
    async call(op, args, signal) {
      if (op === 'send_approval') {
        const m = parseApprovalArgs(args);
        const payload =
          flavour === 'slack' ? slackApprovalPayload(m) : mattermostApprovalPayload(m);
        return deliver(payload, 'send_approval', signal);
      }
      if (op === 'send')
        return deliver(notificationPayload(flavour, parseNotificationArgs(args)), 'send', signal);
      throw new Error(`slack has no operation ${JSON.stringify(op)}`);
    },
  };
}

export const slackKind: ConnectorKind = {
  kind: 'slack',
  title: 'Slack or Mattermost',
  description:
    'Posts approval requests (with approve and deny links as buttons) and notifications to a Slack or Mattermost channel through an incoming webhook.',
  capabilities: ['notify'],
  settings: [
    {
      name: 'url',
      type: 'secret',
      required: true,
      description:
        'The incoming webhook URL (https://hooks.slack.com/services/… or https://<mattermost>/hooks/…). It is the credential: anyone with it can post.',
    },
    {
      name: 'flavour',
      type: 'string',
      required: false,
      default: 'slack',
      description: `${FLAVOURS.join(' or ')}: Slack gets Block Kit buttons, Mattermost Markdown links.`,
    },
    {
      name: 'channel',
      type: 'string',
      required: false,
      description:
        'Channel to post in, where the webhook allows overriding it (Mattermost, legacy Slack webhooks).',
    },
    {
      name: 'username',
      type: 'string',
      required: false,
      description: 'Name to post as, where the webhook allows overriding it.',
    },
  ],
  operations: ['send_approval', 'send'],
  create: createSlackClient,
};
