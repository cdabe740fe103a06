// The slack, teams and webhook kinds against a real node:http server on loopback that
// records every request: body shapes, the HMAC signature, health checks, redirects not
// followed, a server that never answers, a 500 as a clear failure, and the webhook URL and
// HMAC secret never in errors, details, list output, ledger events or logs.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Secret } from '../../shared/secret.js';
import type { ConnectorClient, ResolvedSettings } from '../kind.js';
import { slackKind } from './slack.js';
import { teamsKind } from './teams.js';
import { connectorsStack } from '../../testing/connectors/service-stack.js';
import { signatureOf, webhookKind } from './webhook.js';

const HOOK_KEY = 'T0001/B0002/hook-key-s3cret-9f8e7d6c5b4a';
const HMAC_SECRET = 'hmac-s3cret-0123456789abcdef';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const seen: Seen[] = [];
const hanging: Socket[] = [];
let server: Server;
let base: string;
/** A loopback port nothing listens on (fetch refuses well-known ones such as 9). */
let closed: string;

const APPROVAL = {
  request_id: 'ap-20261122-01',
  title: 'Restart payments-api on web-3',
  summary: 'Memory grows 40 MB/min since the 10:02 deploy; a restart buys hours.\nRisk: low.',
  risk: 'low',
  service: 'payments',
  approve_url: 'https://svc.example.com/v1/approvals/links/AAA.bbb?d=approve',
  deny_url: 'https://svc.example.com/v1/approvals/links/CCC.ddd?d=deny',
  expires_at: '2026-11-22T11:00:00Z',
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url, headers: req.headers, body });
      if (url.startsWith('/hang')) return; // never answers
      if (url === '/') res.writeHead(404).end('not here');
      else if (url.startsWith('/slack/')) {
        if (body === '{}') res.writeHead(400).end('no_text');
        else res.writeHead(200).end('ok');
      } else if (url.startsWith('/mm/')) {
        if (body === '{}')
          res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(
              '{"id":"web.incoming_webhook.text.app_error","message":"No text specified","status_code":400}',
            );
        else res.writeHead(200).end('ok');
      } else if (url.startsWith('/gone/')) res.writeHead(404).end('no_service');
      else if (url.startsWith('/boom/')) res.writeHead(500).end(`internal error at ${url}`);
      else if (url.startsWith('/redirect/'))
        res.writeHead(302, { location: `/slack/${HOOK_KEY}` }).end();
      else if (url.startsWith('/office/'))
        res
          .writeHead(200)
          .end(
            'Webhook message delivery failed with error: Microsoft Teams endpoint returned HTTP error 429',
          );
      else if (url.startsWith('/teams/')) res.writeHead(202).end();
      else if (url.startsWith('/hook')) res.writeHead(204).end();
      else res.writeHead(418).end('unexpected');
    });
  });
  server.on('connection', (s) => hanging.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${String(address.port)}`;
  const spare = createServer();
  await new Promise<void>((r) => spare.listen(0, '127.0.0.1', r));
  const sparePort = (spare.address() as { port: number }).port;
  await new Promise<void>((r) => spare.close(() => r()));
  closed = `http://127.0.0.1:${String(sparePort)}`;
});

afterAll(async () => {
  for (const s of hanging) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

beforeEach(() => {
  seen.splice(0);
});

const client = (
  kind: { create(s: ResolvedSettings): ConnectorClient },
  settings: Record<string, unknown>,
) => kind.create(settings as ResolvedSettings);
const signal = () => AbortSignal.timeout(5000);
const last = (): Seen => {
  const s = seen.at(-1);
  if (s === undefined) throw new Error('no request seen');
  return s;
};
const json = (s: Seen) => JSON.parse(s.body) as Record<string, unknown>;
const errorOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('did not fail');
};

describe('the webhook kind', () => {
  it('posts approval.requested with the documented body, signed over the exact bytes', async () => {
    const c = client(webhookKind, {
      url: `${base}/hook/approvals`,
      secret: new Secret(HMAC_SECRET),
      headers: ['X-Tenant: blue'],
    });
    const r = await c.call('send_approval', APPROVAL, signal());
    expect(r).toEqual({ delivered: true, detail: `accepted by ${base} (HTTP 204)` });
    const s = last();
    expect([s.method, s.url]).toEqual(['POST', '/hook/approvals']);
    expect(json(s)).toEqual({
      type: 'approval.requested',
      ...APPROVAL,
      expires_at: '2026-11-22T11:00:00.000Z',
    });
    expect(s.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(s.headers['x-svc-event']).toBe('approval.requested');
    expect(s.headers['x-tenant']).toBe('blue');
    const expected = `sha256=${createHmac('sha256', HMAC_SECRET).update(s.body).digest('hex')}`;
    expect(s.headers['x-svc-signature']).toBe(expected);
    expect(signatureOf(HMAC_SECRET, s.body)).toBe(expected);
    expect(s.body).not.toContain(HMAC_SECRET);
  });

  it('sends service null when none is given, and notifications; unsigned without a secret', async () => {
    const c = client(webhookKind, { url: `${base}/hook` });
    await c.call('send_approval', { ...APPROVAL, service: undefined }, signal());
    expect(json(last())['service']).toBeNull();
    expect(last().headers['x-svc-signature']).toBeUndefined();
    const r = await c.call('send', { title: 'Halted', text: 'All actions refused.' }, signal());
    expect(r).toMatchObject({
      delivered: true,
      detail: expect.stringMatching(/unsigned$/) as unknown,
    });
    expect(json(last())).toEqual({
      type: 'notification',
      title: 'Halted',
      text: 'All actions refused.',
    });
  });

  it('checks health with a signed channel.ping; a 500 is a failed check', async () => {
    const ok = client(webhookKind, { url: `${base}/hook`, secret: new Secret(HMAC_SECRET) });
    expect(await ok.health(signal())).toMatchObject({
      ok: true,
      detail: `${base} accepted a signed ping (HTTP 204)`,
    });
    expect(json(last())).toMatchObject({ type: 'channel.ping' });
    expect(last().headers['x-svc-signature']).toBe(signatureOf(HMAC_SECRET, last().body));
    const bad = client(webhookKind, { url: `${base}/boom/x`, secret: new Secret(HMAC_SECRET) });
    expect(await bad.health(signal())).toMatchObject({
      ok: false,
      detail: `${base} refused the ping (HTTP 500: internal error at /boom/x)`,
    });
  });

  it('fails clearly on a 500, does not follow redirects, and gives up on a silent server', async () => {
    const boom = client(webhookKind, { url: `${base}/boom/y`, secret: new Secret(HMAC_SECRET) });
    expect(await errorOf(boom.call('send_approval', APPROVAL, signal()))).toBe(
      `approval.requested: ${base} refused the message (HTTP 500: internal error at /boom/y)`,
    );
    const moved = client(webhookKind, { url: `${base}/redirect/z` });
    const why = await errorOf(moved.call('send_approval', APPROVAL, signal()));
    expect(why).toMatch(/redirects \(HTTP 302\); redirects are not followed/);
    expect(seen.map((s) => s.url)).toEqual(['/boom/y', '/redirect/z']);
    const silent = client(webhookKind, { url: `${base}/hang` });
    const started = Date.now();
    const timedOut = await errorOf(
      silent.call('send_approval', APPROVAL, AbortSignal.timeout(300)),
    );
    expect(timedOut).toMatch(/timeout|aborted/i);
    expect(Date.now() - started).toBeLessThan(3000);
    const refused = client(webhookKind, { url: `${closed}/hook` });
    expect(await errorOf(refused.call('send', { title: 't', text: 'x' }, signal()))).toMatch(
      new RegExp(`^notification: cannot reach ${closed}: .*ECONNREFUSED`),
    );
  });

  it('checks its settings and arguments without echoing values', async () => {
    expect(() => client(webhookKind, {})).toThrow('setting url is required');
    expect(() => client(webhookKind, { url: 'ftp://x' })).toThrow(/http:\/\/ or https:\/\//);
    expect(() =>
      client(webhookKind, { url: `${base}/hook`, headers: ['X-Svc-Signature: forged'] }),
    ).toThrow('setting headers must not set x-svc-signature');
    const c = client(webhookKind, { url: `${base}/hook` });
    expect(
      await errorOf(c.call('send_approval', { ...APPROVAL, deny_url: 'javascript:x' }, signal())),
    ).toBe('send_approval: argument deny_url must be an http:// or https:// URL');
    expect(
      await errorOf(
        c.call('send_approval', { ...APPROVAL, expires_at: '2026-11-22 11:00' }, signal()),
      ),
    ).toBe('send_approval: argument expires_at must be an ISO 8601 timestamp with a zone');
    expect(
      await errorOf(c.call('send_approval', { ...APPROVAL, title: undefined }, signal())),
    ).toBe('send_approval: argument title is required');
    expect(await errorOf(c.call('nope', {}, signal()))).toBe('webhook has no operation "nope"');
    expect(seen).toEqual([]);
  });
});

describe('the slack kind', () => {
  it('posts Block Kit with the two links as buttons (Slack flavour)', async () => {
    const c = client(slackKind, { url: new Secret(`${base}/slack/${HOOK_KEY}`) });
    const r = await c.call('send_approval', APPROVAL, signal());
    expect(r).toEqual({ delivered: true, detail: `posted to ${base} (HTTP 200: ok)` });
    const body = json(last());
    expect(body['text']).toBe(
      'Approval requested: Restart payments-api on web-3 (Service: payments · Risk: low)',
    );
    const blocks = body['blocks'] as {
      type: string;
      elements?: { url?: string; text?: unknown }[];
    }[];
    expect(blocks.map((b) => b.type)).toEqual(['header', 'section', 'actions', 'context']);
    expect(blocks[2]?.elements?.map((e) => [e.text, e.url])).toEqual([
      [{ type: 'plain_text', text: 'Approve' }, APPROVAL.approve_url],
      [{ type: 'plain_text', text: 'Deny' }, APPROVAL.deny_url],
    ]);
    expect(body['channel']).toBeUndefined();
  });

  it('posts Markdown links with channel and username (Mattermost flavour)', async () => {
    const c = client(slackKind, {
      url: new Secret(`${base}/mm/hooks/${HOOK_KEY}`),
      flavour: 'mattermost',
      channel: 'town-square',
      username: 'svc',
    });
    await c.call('send_approval', { ...APPROVAL, title: 'Use *bold* [x](y)' }, signal());
    const body = json(last());
    expect(body['channel']).toBe('town-square');
    expect(body['username']).toBe('svc');
    expect(body['blocks']).toBeUndefined();
    const text = String(body['text']);
    expect(text).toContain(`[Approve](${APPROVAL.approve_url}) · [Deny](${APPROVAL.deny_url})`);
    expect(text).toContain('#### Approval requested: Use \\*bold\\* \\[x\\]\\(y\\)');
    expect(await c.health(signal())).toMatchObject({ ok: true });
    expect(last().body).toBe('{}');
  });

  it('counts no_text to an empty message as healthy, and a removed webhook as failing', async () => {
    const live = client(slackKind, { url: new Secret(`${base}/slack/${HOOK_KEY}`) });
    expect(await live.health(signal())).toMatchObject({
      ok: true,
      detail: `webhook at ${base} is live (HTTP 400: no_text to a message without text)`,
    });
    expect(last().body).toBe('{}');
    const gone = client(slackKind, { url: new Secret(`${base}/gone/${HOOK_KEY}`) });
    expect(await gone.health(signal())).toMatchObject({
      ok: false,
      detail: `webhook at ${base} refused (HTTP 404: no_service): removed, wrong or its channel archived`,
    });
  });

  it('never shows the webhook URL: settings, answers that echo it, redirects', async () => {
    expect(() => client(slackKind, { url: `${base}/slack/${HOOK_KEY}` })).toThrow(
      'setting url must be a resolved secret',
    );
    expect(() => client(slackKind, { url: new Secret(`not a url ${HOOK_KEY}`) })).toThrow(
      'setting url is not a valid URL',
    );
    expect(() =>
      client(slackKind, { url: new Secret(`${base}/slack/x`), flavour: 'discord' }),
    ).toThrow('setting flavour must be one of slack, mattermost');
    const echoing = client(slackKind, { url: new Secret(`${base}/boom/${HOOK_KEY}`) });
    const why = await errorOf(echoing.call('send_approval', APPROVAL, signal()));
    expect(why).toBe(
      `send_approval: ${base} refused the message (HTTP 500: internal error at ***)`,
    );
    const health = await echoing.health(signal());
    expect(JSON.stringify(health)).not.toContain('hook-key');
    const moved = client(slackKind, { url: new Secret(`${base}/redirect/${HOOK_KEY}`) });
    const redirected = await errorOf(moved.call('send', { title: 't', text: 'x' }, signal()));
    expect(redirected).toMatch(/redirects/);
    expect(redirected).not.toContain('hook-key');
    expect(seen.filter((s) => s.url.startsWith('/slack/'))).toEqual([]);
  });
});

describe('the teams kind', () => {
  it('posts an Adaptive Card with Approve and Deny as OpenUrl actions', async () => {
    const c = client(teamsKind, { url: new Secret(`${base}/teams/workflows/x?sig=${HOOK_KEY}`) });
    const r = await c.call('send_approval', APPROVAL, signal());
    expect(r).toEqual({ delivered: true, detail: `posted to ${base} (HTTP 202)` });
    const body = json(last()) as {
      type: string;
      attachments: { contentType: string; content: { type: string; actions: unknown[] } }[];
    };
    expect(body.type).toBe('message');
    expect(body.attachments[0]?.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(body.attachments[0]?.content.type).toBe('AdaptiveCard');
    expect(body.attachments[0]?.content.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'Approve', url: APPROVAL.approve_url, style: 'positive' },
      { type: 'Action.OpenUrl', title: 'Deny', url: APPROVAL.deny_url, style: 'destructive' },
    ]);
  });

  it('checks health with HEAD to the origin only, never the secret path', async () => {
    const c = client(teamsKind, { url: new Secret(`${base}/teams/workflows/x?sig=${HOOK_KEY}`) });
    expect(await c.health(signal())).toMatchObject({
      ok: true,
      detail: `${base} answers (HTTP 404 to HEAD /); the webhook key is proven by the first delivery`,
    });
    expect(seen.map((s) => [s.method, s.url])).toEqual([['HEAD', '/']]);
    const down = client(teamsKind, { url: new Secret(`${closed}/x?sig=${HOOK_KEY}`) });
    const why = await errorOf(down.health(signal()));
    expect(why).toMatch(new RegExp(`^health: cannot reach ${closed}: .*ECONNREFUSED`));
    expect(why).not.toContain('hook-key');
  });

  it('treats an Office 365 connector error answered with HTTP 200 as a failure', async () => {
    const c = client(teamsKind, { url: new Secret(`${base}/office/webhookb2/${HOOK_KEY}`) });
    expect(await errorOf(c.call('send', { title: 't', text: 'x' }, signal()))).toBe(
      `send: ${base} did not deliver the message (Webhook message delivery failed with error: Microsoft Teams endpoint returned HTTP error 429)`,
    );
  });
});

describe('through the connectors service', () => {
  it('keeps the webhook URL and HMAC secret out of list output, events and logs; times out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-channels-'));
    const { db, writer, ledgerStore, connectors, lines } = connectorsStack({
      dir,
      kinds: [slackKind, teamsKind, webhookKind],
      defaultConcurrency: 2,
    });
    connectors.start();
    try {
      const actor = { name: 'admin-token' };
      await connectors.put(
        'ops-chat',
        { kind: 'slack', settings: { url: { value: `${base}/boom/${HOOK_KEY}` } }, timeout_s: 2 },
        actor,
      );
      await connectors.put(
        'ops-hook',
        {
          kind: 'webhook',
          settings: { url: `${base}/hang`, secret: { value: HMAC_SECRET } },
          timeout_s: 1,
        },
        actor,
      );
      const answers: unknown[] = [];
      answers.push(connectors.list());
      answers.push(
        await connectors.test({
          kind: 'slack',
          settings: { url: { value: `${base}/boom/${HOOK_KEY}` } },
        }),
      );
      answers.push(await errorOf(connectors.call('ops-chat', 'send_approval', APPROVAL)));
      const timedOut = await errorOf(connectors.call('ops-hook', 'send_approval', APPROVAL));
      expect(timedOut).toMatch(/timed out after 1 s/);
      answers.push(timedOut);
      const events = ledgerStore.range(0, ledgerStore.head().seq, 100);
      const everything = JSON.stringify([answers, events]) + lines.join('');
      expect(everything).not.toContain('hook-key');
      expect(everything).not.toContain(HMAC_SECRET);
      expect(JSON.stringify(connectors.list())).toContain('"file"');
    } finally {
      await connectors.close();
      await writer.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
