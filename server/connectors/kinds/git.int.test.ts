// The git kind against the real git program: the test builds a small repository with fixed
// dates (files added, modified, deleted, renamed, one with a space), reads it back through the
// kind, and stops a fetch from a remote that never answers (a silent local TCP socket).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change, CommitDetail } from './git.parse.js';
import { gitKind } from './git.js';

let dir: string;
let repo: string;
const commits: string[] = [];
const recent = new Date(Date.now() - 2 * 3_600_000).toISOString();

const signal = () => AbortSignal.timeout(10_000);

function run(args: string[], date?: string): string {
  return execFileSync('git', ['-C', repo, ...args], {
    encoding: 'utf8',
    env: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: dir,
      LC_ALL: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Dana Deploy',
      GIT_AUTHOR_EMAIL: 'dana@example.test',
      GIT_COMMITTER_NAME: 'Dana Deploy',
      GIT_COMMITTER_EMAIL: 'dana@example.test',
      ...(date === undefined ? {} : { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date }),
    },
  });
}

function write(path: string, text: string): void {
  mkdirSync(join(repo, path, '..'), { recursive: true });
  writeFileSync(join(repo, path), text);
}

function commit(message: string[], date: string): void {
  run(['add', '-A']);
  run(['commit', '-q', ...message.flatMap((m) => ['-m', m])], date);
  commits.unshift(run(['rev-parse', 'HEAD']).trim());
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'git-kind-'));
  repo = join(dir, 'deploy');
  mkdirSync(repo);
  run(['init', '-q', '-b', 'main']);
  write('deploy/app.yaml', 'image: app:v1\n');
  write('README.md', '# deploy\n\nThe deployment repository of the lab.\n');
  write('old.txt', 'going away\n');
  commit(['Initial deployment'], '2024-01-01T10:00:00Z');
  write('deploy/app.yaml', 'image: app:v2\n');
  unlinkSync(join(repo, 'old.txt'));
  write('deploy/file with space.yaml', 'x: 1\n');
  commit(['Roll out app v2', 'Ticket OPS-1.\nRolled out by the pipeline.'], '2024-01-02T10:00:00Z');
  run(['branch', 'release']);
  mkdirSync(join(repo, 'docs'));
  run(['mv', 'README.md', 'docs/README.md']);
  commit(['Move the readme'], '2024-01-03T10:00:00Z');
  write('deploy/app.yaml', 'image: app:v3\n');
  commit(['Roll out app v3'], recent);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('git kind against a real repository', () => {
  it('reports health with the head commit and its age', async () => {
    const health = await gitKind.create({ path: repo }).health(signal());
    expect(health).toMatchObject({ ok: true });
    expect(health.detail).toBe(`git ${(commits[0] ?? '').slice(0, 7)}, last change 2 h ago`);
  });

  it('reads its setup: head commit, its time and the branch', async () => {
    type Setup = { facts: Record<string, string> };
    const read = async (settings: Record<string, unknown>) =>
      ((await gitKind.create(settings as { path: string }).call('setup', {}, signal())) as Setup)
        .facts;
    expect(await read({ path: repo })).toEqual({
      head: commits[0],
      head_committed_at: `${recent.slice(0, 19)}.000Z`, // git keeps whole seconds
      branch: 'main',
    });
    expect(await read({ path: repo, branch: 'release' })).toEqual({
      head: commits[2],
      head_committed_at: '2024-01-02T10:00:00.000Z',
      branch: 'release',
    });
    const detached = join(dir, 'detached');
    execFileSync('git', ['clone', '-q', repo, detached]);
    execFileSync('git', ['-C', detached, 'checkout', '-q', '--detach', 'HEAD~1']);
    expect(await read({ path: detached })).toMatchObject({
      head: commits[1],
      branch: '(detached)',
    });
    await expect(read({ path: join(dir, 'nowhere') })).rejects.toThrow(/^git setup in /);
  });

  it('lists changes newest first with file statuses', async () => {
    const changes = (await gitKind
      .create({ path: repo })
      .call('changes', {}, signal())) as Change[];
    expect(changes.map((c) => c.commit)).toEqual(commits);
    expect(changes[0]).toEqual({
      commit: commits[0],
      author: 'Dana Deploy <dana@example.test>',
      at: new Date(recent).toISOString().replace(/\.\d+Z$/, '.000Z'),
      subject: 'Roll out app v3',
      files: [{ path: 'deploy/app.yaml', status: 'modified' }],
      service: null,
      services: [],
    });
    expect(changes[1]?.files).toEqual([
      { path: 'docs/README.md', status: 'renamed', from: 'README.md' },
    ]);
    expect(changes[2]).toMatchObject({
      at: '2024-01-02T10:00:00.000Z',
      subject: 'Roll out app v2',
    });
    expect(changes[2]?.files).toEqual(
      expect.arrayContaining([
        { path: 'deploy/app.yaml', status: 'modified' },
        { path: 'deploy/file with space.yaml', status: 'added' },
        { path: 'old.txt', status: 'deleted' },
      ]),
    );
    expect(changes[2]?.files).toHaveLength(3);
    expect(changes[3]?.files.map((f) => f.status)).toEqual(['added', 'added', 'added']);
  });

  it('filters by time, count, path and branch', async () => {
    const client = gitKind.create({ path: repo });
    const since = (await client.call(
      'changes',
      { since: '2024-01-02T00:00:00Z' },
      signal(),
    )) as Change[];
    expect(since.map((c) => c.subject)).toEqual([
      'Roll out app v3',
      'Move the readme',
      'Roll out app v2',
    ]);
    const two = (await client.call('changes', { limit: 2 }, signal())) as Change[];
    expect(two).toHaveLength(2);
    const deploy = (await client.call(
      'changes',
      { paths: ['deploy/app.yaml'] },
      signal(),
    )) as Change[];
    expect(deploy.map((c) => c.subject)).toEqual([
      'Roll out app v3',
      'Roll out app v2',
      'Initial deployment',
    ]);
    const spaced = (await client.call(
      'changes',
      { paths: ['deploy/file with space.yaml', 'old.txt'] },
      signal(),
    )) as Change[];
    expect(spaced.map((c) => c.subject)).toEqual(['Roll out app v2', 'Initial deployment']);
    const glob = (await client.call('changes', { paths: ['deploy/*.yaml'] }, signal())) as Change[];
    expect(glob).toEqual([]); // literal pathspecs: no globbing, no magic
    const release = gitKind.create({ path: repo, branch: 'release' });
    const onRelease = (await release.call('changes', {}, signal())) as Change[];
    expect(onRelease.map((c) => c.commit)).toEqual(commits.slice(2));
  });

  it('refuses bad arguments before running git', async () => {
    const client = gitKind.create({ path: repo });
    await expect(client.call('changes', { paths: ['../etc/passwd'] }, signal())).rejects.toThrow(
      /must not contain \.\./,
    );
    await expect(client.call('changes', { paths: ['deploy/../../x'] }, signal())).rejects.toThrow(
      /must not contain \.\./,
    );
    await expect(client.call('changes', { paths: ['/etc'] }, signal())).rejects.toThrow(/relative/);
    await expect(client.call('changes', { paths: 'deploy' }, signal())).rejects.toThrow(
      /argument paths/,
    );
    await expect(client.call('changes', { limit: 501 }, signal())).rejects.toThrow(/from 1 to 500/);
    await expect(client.call('changes', { since: 'yesterday' }, signal())).rejects.toThrow(
      /argument since/,
    );
    await expect(client.call('show', { commit: '--output=/tmp/x' }, signal())).rejects.toThrow(
      /argument commit/,
    );
    await expect(client.call('show', { commit: 'HEAD' }, signal())).rejects.toThrow(
      /argument commit/,
    );
    await expect(client.call('push', {}, signal())).rejects.toThrow(/no operation/);
    expect(() => gitKind.create({})).toThrow('setting path is required');
    expect(() => gitKind.create({ path: 'relative/clone' })).toThrow(/absolute/);
    expect(() => gitKind.create({ path: repo, branch: '--upload-pack=touch /tmp/x' })).toThrow(
      /setting branch/,
    );
    expect(() => gitKind.create({ path: repo, fetch: 'yes' })).toThrow(/true or false/);
  });

  it('names the service a change belongs to from the service and layout settings', async () => {
    const client = gitKind.create({ path: repo, service: 'web', layout: ['deploy/=app'] });
    const changes = (await client.call('changes', {}, signal())) as Change[];
    expect(changes.map((c) => c.service)).toEqual(['app', 'web', 'app', 'app']);
  });

  it('shows one commit with its body and diffstat', async () => {
    const client = gitKind.create({ path: repo });
    const sha = commits[2] ?? '';
    const detail = (await client.call(
      'show',
      { commit: sha.slice(0, 10) },
      signal(),
    )) as CommitDetail;
    expect(detail).toMatchObject({
      commit: sha,
      author: 'Dana Deploy <dana@example.test>',
      at: '2024-01-02T10:00:00.000Z',
      subject: 'Roll out app v2',
      body: 'Ticket OPS-1.\nRolled out by the pipeline.',
    });
    expect(detail.diffstat).toContain('deploy/app.yaml');
    expect(detail.diffstat).toContain('deploy/file with space.yaml');
    expect(detail.diffstat).toMatch(/3 files changed, 2 insertions\(\+\), 2 deletions\(-\)$/);
    // What it changed (app:v1 → app:v2), not the words of the file it added.
    expect(detail.added).toEqual(['app:v2']);
    const err = (await client
      .call('show', { commit: 'deadbeef00' }, signal())
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^git show deadbeef00 in .*: fatal: /);
  });
});

describe('git kind when the repository is missing or slow', () => {
  it('fails health clearly on a folder that is not a repository, or no folder', async () => {
    const plain = join(dir, 'plain');
    mkdirSync(plain);
    const health = await gitKind.create({ path: plain }).health(signal());
    expect(health.ok).toBe(false);
    expect(health.detail).toMatch(/is not a usable git repository: .*not a git repository/);
    const missing = await gitKind.create({ path: join(dir, 'nowhere') }).health(signal());
    expect(missing.ok).toBe(false);
    expect(missing.detail).toMatch(/nowhere is not a usable git repository: .*cannot change to/);
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    execFileSync('git', ['-C', empty, 'init', '-q']);
    const unborn = await gitKind.create({ path: empty }).health(signal());
    expect(unborn.ok).toBe(false);
    expect(unborn.detail).toMatch(/^no commit on HEAD in /);
  });

  it('stops a fetch that hangs when the signal times out, and keeps credentials out', async () => {
    const sockets: Socket[] = [];
    const silent = createNetServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const clone = join(dir, 'clone');
    execFileSync('git', ['clone', '-q', repo, clone]);
    execFileSync('git', [
      '-C',
      clone,
      'remote',
      'set-url',
      'origin',
      `git://127.0.0.1:${String(address.port)}/deploy`,
    ]);
    try {
      const client = gitKind.create({ path: clone, fetch: true, branch: 'origin/main' });
      const started = Date.now();
      const err = (await client
        .call('changes', {}, AbortSignal.timeout(300))
        .catch((e: unknown) => e)) as Error;
      expect(Date.now() - started).toBeLessThan(2000);
      expect(err.name).toBe('TimeoutError');
      expect(sockets.length).toBe(1);

      // A remote that refuses: git's complaint comes back, the URL's password does not.
      execFileSync('git', [
        '-C',
        clone,
        'remote',
        'set-url',
        'origin',
        'http://ops:pw-secret-3@127.0.0.1:1/deploy.git',
      ]);
      const refused = (await client
        .call('changes', {}, signal())
        .catch((e: unknown) => e)) as Error;
      expect(refused.message).toMatch(/^git fetch in .*: fatal: /);
      expect(refused.message + String(refused.stack)).not.toContain('pw-secret');
      // Without fetch the local remote-tracking branch is read.
      const local = (await gitKind
        .create({ path: clone, branch: 'origin/main' })
        .call('changes', { limit: 1 }, signal())) as Change[];
      expect(local[0]?.commit).toBe(commits[0]);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});
