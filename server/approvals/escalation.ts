// Asking people: when a request opens, and again at each escalation step of the policy
// (`after_s` after it opened), the step's channel connector is called with `send_approval`:
// the request and two signed single-use links (approve, deny) that lead to the console's
// link page. Requests that need an admin (autonomy, fix mode) get the console page of the
// request instead of links: a link is no person, and those need two people with a role.
// Every send is recorded as approval.sent (ok or failed, with one line of detail). The same
// timer closes expired requests. Steps already sent (recorded in the request's channels) are
// never sent again, after a restart too; a step whose time passed while the service was down
// is sent at the next tick. A step that asks one person (its `who` comes to exactly one
// enabled person who may approve) gets links signed for that person: using one counts as
// them. Links of a step that asks several people count as the channel.
import type { LinkSigner } from '../channels/index.js';
import type { Clock } from '../shared/clock.js';
import { roleAtLeast } from '../shared/roles.js';
import type { ApprovalsService } from './approvals.service.js';
import type { ApproverPerson } from './approvers.js';
import type { ApprovalRequest } from './types.js';

/** Who a step asks (the policy's escalation.steps[].who). */
export interface EscalationWhoRef {
  readonly users?: readonly string[];
  readonly teams?: readonly string[];
  readonly role?: 'responder' | 'admin' | 'owner';
}

export interface EscalationStepRef {
  readonly after_s: number;
  readonly channel: string;
  readonly who?: EscalationWhoRef;
}

/** The ids of the enabled people a step asks who may decide the request. */
export function recipientsOf(
  who: EscalationWhoRef | undefined,
  people: readonly ApproverPerson[],
  approverRole: ApprovalRequest['approver_role'],
): string[] {
  if (who === undefined) return [];
  const users = new Set(who.users ?? []);
  const teams = new Set(who.teams ?? []);
  return people
    .filter(
      (p) =>
        !p.disabled &&
        roleAtLeast(p.role, approverRole) &&
        (users.has(p.id) ||
          (p.teams ?? []).some((t) => teams.has(t)) ||
          (who.role !== undefined && roleAtLeast(p.role, who.role))),
    )
    .map((p) => p.id);
}

/** Runs `fn` every `ms`; returns a stop function. Tests pass one they drive by hand. */
export type Every = (ms: number, fn: () => void) => () => void;

export const realEvery: Every = (ms, fn) => {
  const t = setInterval(fn, ms);
  t.unref();
  return () => {
    clearInterval(t);
  };
};

export interface EscalationDeps {
  readonly approvals: Pick<ApprovalsService, 'pending' | 'recordSent' | 'onOpened' | 'sweep'>;
  /** policy.current().escalation.steps */
  readonly steps: () => readonly EscalationStepRef[];
  /** connectors.call */
  readonly call: (
    connector: string,
    op: string,
    args: Readonly<Record<string, unknown>>,
  ) => Promise<unknown>;
  readonly links: LinkSigner;
  /** Everyone who may sign in (peopleStore.users()); absent: links go to no one person. */
  readonly people?: () => readonly ApproverPerson[];
  /** Where people reach the console: SVC_CONSOLE_URL, else http://127.0.0.1:<port>. */
  readonly baseUrl: () => string;
  readonly clock: Clock;
  readonly every?: Every;
  /** How often the timer looks; 1 s by default. */
  readonly intervalMs?: number;
  readonly log?: { error(obj: object, msg: string): void; warn?(obj: object, msg: string): void };
}

const MAX_DETAIL = 500;

function clip(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL)}…` : line;
}

/** The console page of a link: it shows the request and posts the token when confirmed. */
export const linkUrl = (base: string, token: string): string =>
  `${base}/approvals/link?token=${encodeURIComponent(token)}`;
/** The console page of one request. */
export const requestUrl = (base: string, requestId: string): string =>
  `${base}/approvals/${encodeURIComponent(requestId)}`;

export function createEscalation(deps: EscalationDeps) {
  const { approvals, clock, links } = deps;
  const every = deps.every ?? realEvery;
  const inFlight = new Set<string>();
  let stop: (() => void) | null = null;
  let running: Promise<void> | null = null;
  let again = false;

  async function send(r: ApprovalRequest, index: number, step: EscalationStepRef): Promise<void> {
    const base = deps.baseUrl().replace(/\/+$/, '');
    let approveUrl: string;
    let denyUrl: string;
    const secrets: string[] = [];
    const linkIds: string[] = [];
    if (r.approver_role === 'responder') {
      const asked = recipientsOf(step.who, deps.people?.() ?? [], r.approver_role);
      const pair = links.signPair(
        r.request_id,
        r.expires_at,
        asked.length === 1 ? asked[0] : undefined,
      );
      secrets.push(pair.approve, pair.deny);
      for (const t of [pair.approve, pair.deny]) {
        const c = links.verify(t);
        if (c.ok) linkIds.push(c.token_id);
      }
      approveUrl = linkUrl(base, pair.approve);
      denyUrl = linkUrl(base, pair.deny);
    } else {
      approveUrl = requestUrl(base, r.request_id);
      denyUrl = approveUrl;
    }
    const summary =
      r.approver_role === 'responder'
        ? r.summary
        : `${r.summary}\n\nThis needs ${String(r.quorum)} people with the ${r.approver_role} role; decide it in the console.`.trim();
    let ok = false;
    let detail: string;
    try {
      const answer = await deps.call(step.channel, 'send_approval', {
        request_id: r.request_id,
        title: r.title,
        summary,
        risk: r.risk,
        service: r.service,
        approve_url: approveUrl,
        deny_url: denyUrl,
        expires_at: r.expires_at,
      });
      const said = (answer as { detail?: unknown } | null)?.detail;
      ok = true;
      detail = typeof said === 'string' && said !== '' ? said : 'sent';
    } catch (err) {
      detail = err instanceof Error ? err.message : String(err);
    }
    // A far end may echo what it was sent: the tokens never reach the ledger.
    for (const s of secrets) detail = detail.split(s).join('***');
    await approvals.recordSent({
      request_id: r.request_id,
      channel: step.channel,
      step: index,
      ok,
      detail: clip(detail) || (ok ? 'sent' : 'failed'),
      ...(ok && linkIds.length > 0 && { link_ids: linkIds }),
    });
  }

  /** Sends every step that is due and not sent yet, for every pending request. */
  async function once(): Promise<void> {
    try {
      await approvals.sweep();
    } catch (err) {
      deps.log?.error({ err }, 'closing expired approval requests failed');
    }
    const steps = deps.steps();
    if (steps.length === 0) return;
    const now = clock.now();
    const jobs: Promise<void>[] = [];
    for (const r of approvals.pending()) {
      const opened = Date.parse(r.requested_at);
      if (Date.parse(r.expires_at) <= now) continue;
      steps.forEach((step, index) => {
        if (opened + step.after_s * 1000 > now) return;
        if (r.channels.some((c) => c.step === index)) return;
        const key = `${r.request_id}#${String(index)}`;
        if (inFlight.has(key)) return;
        inFlight.add(key);
        jobs.push(
          send(r, index, step)
            .catch((err: unknown) => {
              deps.log?.error(
                { err, request_id: r.request_id, step: index },
                'recording an escalation step failed',
              );
            })
            .finally(() => inFlight.delete(key)),
        );
      });
    }
    await Promise.all(jobs);
  }

  /** One pass now (or right after the pass that is running); resolves when it is done. */
  function tick(): Promise<void> {
    if (running !== null) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await once();
        } while (again);
      } finally {
        running = null;
      }
    })();
    return running;
  }

  return {
    tick,
    /** Send at once when a request opens, and look every interval. */
    start(): void {
      if (stop !== null) return;
      approvals.onOpened(() => {
        if (stop !== null) void tick();
      });
      stop = every(deps.intervalMs ?? 1000, () => {
        void tick();
      });
      void tick();
    },
    /** Stop the timer and wait for the sends under way. */
    async stop(): Promise<void> {
      stop?.();
      stop = null;
      if (running !== null) await running;
    },
  };
}
export type Escalation = ReturnType<typeof createEscalation>;
