// What an approval channel sends: the arguments of the `notify` kinds' operations
// (`send_approval`, `send`), checked once here, and the plain-text form every kind shares.
// Errors name the argument, never its value: the links carry signed tokens.

/** `send_approval`: one request, with its two single-use links. */
export interface ApprovalMessage {
  readonly request_id: string;
  readonly title: string;
  readonly summary: string;
  readonly risk: string;
  readonly service: string | null;
  readonly approve_url: string;
  readonly deny_url: string;
  /** ISO-8601 UTC; when both links stop working */
  readonly expires_at: string;
}

/** `send`: a plain notification. */
export interface NotificationMessage {
  readonly title: string;
  readonly text: string;
}

/** What `send_approval` and `send` answer once the channel accepted the message. */
export interface Delivery {
  readonly delivered: true;
  /** one line: where it went and what the far end said */
  readonly detail: string;
}

const LIMITS = {
  request_id: 200,
  title: 200,
  summary: 4000,
  risk: 50,
  service: 200,
  text: 4000,
  url: 2000,
} as const;

function text(
  args: Readonly<Record<string, unknown>>,
  name: keyof typeof LIMITS,
  op: string,
  required = true,
): string | null {
  const value = args[name];
  if (value === undefined || value === null || value === '') {
    if (required) throw new Error(`${op}: argument ${name} is required`);
    return null;
  }
  if (typeof value !== 'string') throw new Error(`${op}: argument ${name} must be a string`);
  if (value.length > LIMITS[name])
    throw new Error(`${op}: argument ${name} is longer than ${String(LIMITS[name])} characters`);
  return value;
}

/** One line: a title or service never breaks a mail header or a chat heading. */
const oneLine = (s: string): string => s.replace(/[\r\n\t\0]+/g, ' ').trim();

function link(args: Readonly<Record<string, unknown>>, name: 'approve_url' | 'deny_url'): string {
  const value = args[name];
  if (typeof value !== 'string' || value === '')
    throw new Error(`send_approval: argument ${name} is required`);
  if (value.length > LIMITS.url)
    throw new Error(
      `send_approval: argument ${name} is longer than ${String(LIMITS.url)} characters`,
    );
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`send_approval: argument ${name} is not a valid URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`send_approval: argument ${name} must be an http:// or https:// URL`);
  return url.href;
}

export function parseApprovalArgs(args: Readonly<Record<string, unknown>>): ApprovalMessage {
  const op = 'send_approval';
  const expires = args['expires_at'];
  if (typeof expires !== 'string' || expires === '')
    throw new Error(`${op}: argument expires_at is required`);
  const at = Date.parse(expires);
  if (!Number.isFinite(at) || !/(Z|[+-]\d\d:\d\d)$/.test(expires))
    throw new Error(`${op}: argument expires_at must be an ISO 8601 timestamp with a zone`);
  const service = text(args, 'service', op, false);
  return {
    request_id: oneLine(text(args, 'request_id', op) ?? ''),
    title: oneLine(text(args, 'title', op) ?? ''),
    summary: (text(args, 'summary', op) ?? '').trim(),
    risk: oneLine(text(args, 'risk', op) ?? ''),
    service: service === null ? null : oneLine(service),
    approve_url: link(args, 'approve_url'),
    deny_url: link(args, 'deny_url'),
    expires_at: new Date(at).toISOString(),
  };
}

export function parseNotificationArgs(
  args: Readonly<Record<string, unknown>>,
): NotificationMessage {
  return {
    title: oneLine(text(args, 'title', 'send') ?? ''),
    text: (text(args, 'text', 'send') ?? '').trim(),
  };
}

/** The heading every channel shows: "Approval requested: <title>". */
export const approvalHeading = (m: ApprovalMessage): string => `Approval requested: ${m.title}`;

/** Service and risk on one line. */
export const approvalFacts = (m: ApprovalMessage): string =>
  [m.service === null ? null : `Service: ${m.service}`, `Risk: ${m.risk}`]
    .filter((s) => s !== null)
    .join(' · ');

/** The closing line: the links' rules and the request. */
export const approvalFooter = (m: ApprovalMessage): string =>
  `Each link works once; both expire at ${m.expires_at}. Request ${m.request_id}.`;

/** The plain-text body (mail's text part; the chat kinds' fallback text). */
export function approvalText(m: ApprovalMessage): string {
  return [
    approvalHeading(m),
    approvalFacts(m),
    '',
    m.summary,
    '',
    `Approve: ${m.approve_url}`,
    `Deny: ${m.deny_url}`,
    '',
    approvalFooter(m),
    '',
  ].join('\n');
}

/** Replaces every occurrence of the secrets in a message (a far end may echo them back). */
export function scrub(message: string, secrets: readonly (string | undefined)[]): string {
  let out = message;
  for (const s of secrets) if (s !== undefined && s.length >= 4) out = out.split(s).join('***');
  return out;
}

/** Clips a far end's answer to one short line for `detail` and errors. */
export function clipAnswer(body: string, max = 160): string {
  const line = body.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
