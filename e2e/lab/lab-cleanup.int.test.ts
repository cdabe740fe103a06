// A lab that fails to start half-way, because ssh-keygen is missing (a PATH without it),
// stops everything it had started by then: the service, PostgreSQL, the exporters, the
// units. Its own folder and addresses (127.0.9.x), like the other lab tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLab } from './lab.js';
import { pathWithout, processesOf } from './processes.js';

const PATH = process.env['PATH'];
const parent = mkdtempSync(join(tmpdir(), 'lab-cleanup-test-'));
afterAll(() => {
  process.env['PATH'] = PATH;
  rmSync(parent, { recursive: true, force: true });
});

describe('a lab whose start fails half-way', () => {
  it('fails naming ssh-keygen and leaves no process running', async () => {
    const dir = join(parent, 'lab');
    const hidden = pathWithout(['ssh-keygen']);
    const before = processesOf(process.pid);
    try {
      process.env['PATH'] = hidden.path;
      await expect(startLab({ dir, net: '127.0.9', mount: false })).rejects.toThrow(
        /ssh-keygen is missing \(not on PATH\)/,
      );
    } finally {
      process.env['PATH'] = PATH;
      hidden.cleanup();
    }
    // Children of this process, and daemons (nginx, the app, PostgreSQL) that name the folder.
    expect(processesOf(process.pid, dir)).toEqual(before);
  }, 90_000);
});
