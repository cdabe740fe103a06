// The people part a keychain home carries, applied on a real runtime (SQLite file, ledger,
// projections): names someone here holds, the last owner, what the home deleted, and no
// re-apply once held (a member's own people are no difference).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createRuntime } from '../compose/index.js';
import { testEnv } from '../testing/test-server.js';
import { createPeopleService } from './people.service.js';

const HOME = 'keychain:HOMEFINGERPRINT';
const owner = { actor: { name: 'test' }, role: 'owner' as const, userId: null };

describe('the people part on a member', () => {
  let dir: string;
  let rt: ReturnType<typeof createRuntime>;
  let people: ReturnType<typeof createPeopleService>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-people-carried-'));
    rt = createRuntime(loadConfig(testEnv(dir, join(dir, 'machine-id'))), {
      log: createLogger('silent'),
    });
    people = createPeopleService({
      store: rt.peopleStore,
      ledger: rt.ledger,
      writer: rt.writer,
      clock: rt.clock,
    });
  });
  afterAll(() => {
    rt.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const apply = (doc: unknown) => rt.writer.transact(() => people.applyCarried(doc, HOME));
  const byEmail = (e: string) => people.byEmail(e);
  const doc = (extra: object = {}) => ({
    people: [
      { email: 'olga@home.example', name: 'Olga', role: 'owner', handles: {}, disabled: false },
      { email: 'ann@home.example', name: 'Dana', role: 'responder', handles: {}, disabled: false },
    ],
    teams: [{ name: 'ops', leads: ['olga@home.example'], members: ['ann@home.example'] }],
    removed: { people: [], teams: [] },
    ...extra,
  });

  it('takes the home people by e-mail, leaving out a name someone here holds, then holds it', async () => {
    await people.create({ email: 'dana@member.example', name: 'Dana', role: 'owner' }, owner);
    await apply(doc());
    expect(byEmail('olga@home.example')).toMatchObject({ role: 'owner', name: 'Olga' });
    // "Dana" is the member's own person's name: approvals tell people apart by name.
    expect(byEmail('ann@home.example')).toMatchObject({ role: 'responder', name: '' });
    expect(byEmail('dana@member.example')).toMatchObject({ role: 'owner', disabled: false });
    const ops = people.teams().teams.find((t) => t.name === 'ops');
    expect(ops?.leads).toEqual([byEmail('olga@home.example')?.id]);
    // Held: the next pull applies nothing (the member's own Dana is no difference).
    expect(people.holdsCarried(doc())).toBe(true);
    expect(people.holdsCarried({ ...doc(), people: [{ ...doc().people[0], role: 'admin' }] })).toBe(
      false,
    );
  });

  it('disables a person and deletes a team the home deleted, never deleting the person', async () => {
    const removed = { people: ['ann@home.example'], teams: ['ops'] };
    await apply(doc({ people: [doc().people[0]], teams: [], removed }));
    expect(byEmail('ann@home.example')).toMatchObject({ disabled: true });
    expect(people.teams().teams.map((t) => t.name)).not.toContain('ops');
    expect(people.holdsCarried(doc({ people: [doc().people[0]], teams: [], removed }))).toBe(true);
  });

  it('refuses, changing nothing, a document that would leave no enabled owner here', async () => {
    await people.update(byEmail('dana@member.example')?.id ?? '', { role: 'admin' }, owner);
    const head = rt.ledgerStore.head().seq;
    const demoted = doc({ people: [{ ...doc().people[0], role: 'viewer' }] });
    await expect(apply(demoted)).rejects.toThrow(/without an enabled owner/);
    expect(byEmail('olga@home.example')).toMatchObject({ role: 'owner' });
    expect(rt.ledgerStore.head().seq).toBe(head);
  });

  it('refuses a person whose role is not a role, naming where', async () => {
    const bad = doc({ people: [{ ...doc().people[0], role: 'root' }] });
    await expect(apply(bad)).rejects.toThrow('people.0.role is not a role');
  });
});
