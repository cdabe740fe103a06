// A console test harness that fails to start, because Chromium is missing (a PATH without
// it), stops the service it had already started: no child process is left behind.
import { afterEach, describe, expect, it } from 'vitest';
import { pathWithout, processesOf } from '../lab/processes.js';
import { startConsole } from './browser.js';

const PATH = process.env['PATH'];
afterEach(() => {
  process.env['PATH'] = PATH;
});

describe('the console harness with Chromium missing', () => {
  it('fails naming chromium and leaves no process running', async () => {
    const hidden = pathWithout(['chromium']);
    const before = processesOf(process.pid);
    try {
      process.env['PATH'] = hidden.path;
      await expect(startConsole({})).rejects.toThrow(/chromium is missing \(not on PATH\)/);
    } finally {
      process.env['PATH'] = PATH;
      hidden.cleanup();
    }
    expect(processesOf(process.pid)).toEqual(before);
  });
});
