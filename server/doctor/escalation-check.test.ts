// Approvals / escalation: ok without steps or with every channel connected; a warning naming
// the step and channel when a channel is missing, of a kind that cannot notify, not checked
// yet, or failing.
import { describe, expect, it } from 'vitest';
import type { ConnectionState } from './core-checks.js';
import { escalationCheck, type EscalationStepRef } from './escalation-check.js';

const NOTIFY = ['mail', 'slack', 'teams', 'webhook'];
const conn = (
  name: string,
  kind: string,
  patch: Partial<ConnectionState> = {},
): ConnectionState => ({
  name,
  kind,
  problem: null,
  last_health: { ok: true, detail: 'fine', duration_ms: 3 },
  ...patch,
});
const run = (steps: EscalationStepRef[], connections: ConnectionState[]) =>
  escalationCheck({
    steps: () => steps,
    connections: () => connections,
    notifyKinds: () => NOTIFY,
  }).run();

describe('the escalation check', () => {
  it('is Approvals / escalation, ok with "no escalation steps" when there are none', async () => {
    const check = escalationCheck({
      steps: () => [],
      connections: () => [],
      notifyKinds: () => NOTIFY,
    });
    expect([check.area, check.name]).toEqual(['Approvals', 'escalation']);
    expect(await check.run()).toEqual({ status: 'ok', detail: 'no escalation steps', hint: '' });
  });

  it('is ok when every step names a healthy notify connector', async () => {
    const r = await run(
      [
        { after_s: 0, channel: 'ops-mail' },
        { after_s: 900, channel: 'ops-chat' },
        { after_s: 1800, channel: 'ops-mail' },
      ],
      [conn('ops-mail', 'mail'), conn('ops-chat', 'slack'), conn('prom', 'prometheus')],
    );
    expect(r).toEqual({
      status: 'ok',
      detail: '3 steps; every channel connected (ops-mail, ops-chat)',
      hint: '',
    });
  });

  it('warns naming the step and channel when the connector is missing', async () => {
    const r = await run(
      [
        { after_s: 0, channel: 'ops-mail' },
        { after_s: 600, channel: 'pager' },
      ],
      [conn('ops-mail', 'mail')],
    );
    expect(r.status).toBe('warn');
    expect(r.detail).toBe(
      '1 of 2 steps cannot reach people: step 2 (after 10 min) channel pager: no such connector',
    );
    expect(r.hint).toMatch(/add a connector of kind mail, slack, teams or webhook/);
    expect(r.hint).not.toMatch(/failing/);
  });

  it('warns when the named connector cannot notify', async () => {
    const r = await run([{ after_s: 0, channel: 'prom' }], [conn('prom', 'prometheus')]);
    expect(r).toMatchObject({
      status: 'warn',
      detail:
        '1 of 1 steps cannot reach people: step 1 (at once) channel prom: a prometheus connector cannot send approval requests',
    });
  });

  it('warns when a channel fails its health check, is not checked yet, or cannot be built', async () => {
    const r = await run(
      [
        { after_s: 0, channel: 'mail' },
        { after_s: 90, channel: 'chat' },
        { after_s: 120, channel: 'hook' },
      ],
      [
        conn('mail', 'mail', {
          last_health: { ok: false, detail: 'SMTP mx:587: connection refused', duration_ms: 2 },
        }),
        conn('chat', 'teams', { last_health: null }),
        conn('hook', 'webhook', { problem: 'setting url is required', last_health: null }),
      ],
    );
    expect(r.status).toBe('warn');
    expect(r.detail).toBe(
      '3 of 3 steps cannot reach people: step 1 (at once) channel mail: failing: SMTP mx:587: connection refused; ' +
        'step 2 (after 90 s) channel chat: not checked yet; ' +
        'step 3 (after 2 min) channel hook: setting url is required',
    );
    expect(r.hint).toMatch(/fix the failing channels/);
  });
});
