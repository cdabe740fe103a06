import { defineConfig } from 'vitest/config';

// Three projects: fast colocated unit tests, the console's components in a DOM, and integration tests that use real SQLite
// files, sockets, child processes and Debian's servers (rsyslog, …).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          environment: 'node',
          sequence: { groupOrder: 0 },
          include: [
            'server/**/*.test.ts',
            'models/**/*.test.ts',
            'main/**/*.test.ts',
            'build/**/*.test.ts',
            // The console's logic without a DOM (pure functions of its pages).
            'renderer/**/*.test.ts',
          ],
          exclude: ['**/*.int.test.ts', 'node_modules/**', 'dist/**'],
          // Both cores (vitest's default on two is one worker): each file's imports cost about
          // as much as its tests, and one at a time the 160 files took 104 s of the suite.
          maxWorkers: 2,
          // A worker keeps the modules it loaded from file to file (unit and dom: 78 s → 30 s,
          // the imports were most of it). A test that needs a module replaced passes the value
          // in instead (config's `cpus`): a vi.mock would miss a module already loaded.
          isolate: false,
        },
      },
      {
        // The console's components with logic, rendered into happy-dom (a DOM without a
        // browser): fast checks of what a person sees and does; the real Chromium runs in e2e/.
        test: {
          name: 'dom',
          environment: 'happy-dom',
          sequence: { groupOrder: 0 },
          include: ['renderer/**/*.test.tsx'],
          // Runs beside unit (same group), which vitest allows only with the same worker count.
          maxWorkers: 2,
          isolate: false,
        },
      },
      {
        test: {
          name: 'integration',
          environment: 'node',
          sequence: { groupOrder: 1 },
          include: [
            'server/**/*.int.test.ts',
            'models/**/*.int.test.ts',
            'e2e/**/*.int.test.ts',
            'build/**/*.int.test.ts',
          ],
          exclude: ['node_modules/**', 'dist/**'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // expect.poll's own default (1 s) is shorter than a busy two-core runner needs for a
          // page to fetch and render; a poll that passes returns as soon as it does.
          expect: { poll: { timeout: 10_000 } },
          // Two cores: integration tests start servers and child processes.
          maxWorkers: 2,
          // Modules stay loaded from file to file here too (the server's import graph is the
          // same in every file: 238 s of imports across the files became 14 s). Each file
          // still builds its own servers, data folders and browsers.
          isolate: false,
        },
      },
    ],
  },
});
