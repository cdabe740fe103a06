import { describe, expect, it } from 'vitest';
import { createChangesReader } from './changes.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('what changed before an episode', () => {
  it('shows a watched file change as its path and masked diff, not as hashes', () => {
    const read = createChangesReader({
      snapshots: () => [
        {
          seq: 7,
          connector: 'ssh-app',
          at: '2026-03-02T09:58:30.000Z',
          added: { 'diff:/etc/app.conf': '-pool_size = 5 | +pool_size = 6' },
          removed: {},
          changed: {
            'file:/etc/app.conf': { from: A, to: B },
            'file:/etc/app.env': { from: B, to: A },
            'unit:app': { from: 'running', to: 'failed' },
          },
        },
      ],
      events: () => [],
    });
    expect(read('2026-03-02T09:00:00.000Z', 'app')).toEqual([
      {
        kind: 'snapshot',
        at: '2026-03-02T09:58:30.000Z',
        what: 'ssh-app: /etc/app.conf changed: -pool_size = 5 | +pool_size = 6; /etc/app.env changed (sha256 bbbbbbbbbbbb → aaaaaaaaaaaa); {"changed":{"unit:app":{"from":"running","to":"failed"}}}',
        source: 'ssh-app',
        service: null,
        seq: 7,
        type: 'snapshot',
        actor: null,
        host: null,
      },
    ]);
  });

  it('keeps other snapshot changes and first snapshots as their diff', () => {
    const read = createChangesReader({
      snapshots: () => [
        {
          seq: 3,
          connector: 'prom',
          at: '2026-03-02T09:10:00.000Z',
          added: { version: '2.53' },
          removed: {},
          changed: {},
          first: true,
        },
      ],
      events: () => [],
    });
    expect(read('2026-03-02T09:00:00.000Z', 'app')[0]?.what).toBe(
      'prom: {"added":{"version":"2.53"},"removed":{},"changed":{},"first":true}',
    );
  });

  it('names the type, who reported it and the host of a deploy or action event', () => {
    const read = createChangesReader({
      snapshots: () => [],
      events: () => [
        {
          seq: 9,
          ts: '2026-03-02T09:40:00.000Z',
          type: 'human.deploy',
          actor: 'ci:app',
          data: { service: 'app', version: 'v7', host: 'web-2' },
        },
        {
          seq: 10,
          ts: '2026-03-02T09:50:00.000Z',
          type: 'human.action',
          actor: 'human:alice',
          data: { service: 'app', action: 'restart' },
        },
      ],
    });
    expect(read('2026-03-02T09:00:00.000Z', 'app')).toEqual([
      expect.objectContaining({ seq: 10, type: 'human.action', actor: 'human:alice', host: null }),
      expect.objectContaining({
        seq: 9,
        type: 'human.deploy',
        actor: 'ci:app',
        host: 'web-2',
        what: 'human.deploy by ci:app version v7',
      }),
    ]);
  });
});
