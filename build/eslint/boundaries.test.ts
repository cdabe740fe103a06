// The boundary rules fire on deliberately bad imports and stay quiet on good ones, linted
// against a small server/ tree written to a temporary folder.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';
import boundaries from './boundaries.js';

const dir = mkdtempSync(join(tmpdir(), 'boundaries-'));
const root = join(dir, 'server');
const tree: Record<string, string> = {
  'a/index.ts': 'export const a = 1;\n',
  'a/inner.ts': 'export const inner = 1;\n',
  // b → a: a file of a that imports b closes a cycle.
  'b/index.ts': "import { a } from '../a/index.js';\nexport const b = a;\n",
  'shared/util.ts': 'export const u = 1;\n',
  'testing/support.ts': "import { inner } from '../a/inner.js';\nexport const s = inner;\n",
};
for (const [file, text] of Object.entries(tree)) {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
}
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RULES = ['domain-index', 'layers', 'no-test-support', 'no-folder-cycle'] as const;
const linter = new Linter({ cwd: dir });
const config: Linter.Config[] = [
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { boundaries },
    rules: Object.fromEntries(RULES.map((r) => [`boundaries/${r}`, ['error', { root }]])),
  },
];

/** The rules that fire on `code` written as server/<file>. */
const firing = (file: string, code: string): string[] =>
  linter
    .verify(code, config, { filename: join(root, file) })
    .map((m) => m.ruleId ?? m.message)
    .sort();

describe('boundaries/domain-index', () => {
  it("fires on an import of another domain's file, type-only and in tests too", () => {
    expect(firing('b/x.ts', "import { inner } from '../a/inner.js';")).toEqual([
      'boundaries/domain-index',
    ]);
    expect(firing('b/x.ts', "import type { inner } from '../a/inner.js';")).toEqual([
      'boundaries/domain-index',
    ]);
    expect(firing('b/x.test.ts', "export { inner } from '../a/inner.js';")).toEqual([
      'boundaries/domain-index',
    ]);
    expect(firing('c/deep/x.ts', "const m = import('../../a/inner.js');")).toEqual([
      'boundaries/domain-index',
    ]);
  });
  it("is quiet on an index, a layer's file, its own domain and test support", () => {
    expect(firing('b/x.ts', "import { a } from '../a/index.js';")).toEqual([]);
    expect(firing('b/x.ts', "import { u } from '../shared/util.js';")).toEqual([]);
    expect(firing('a/x.ts', "import { inner } from './inner.js';")).toEqual([]);
    expect(firing('testing/x.ts', "import { inner } from '../a/inner.js';")).toEqual([]);
  });
});

describe('boundaries/layers', () => {
  it('fires when a layer imports a domain', () => {
    expect(firing('shared/x.ts', "import { a } from '../a/index.js';")).toEqual([
      'boundaries/layers',
    ]);
  });
  it('is quiet on a layer importing a layer', () => {
    expect(firing('http/x.ts', "import { u } from '../shared/util.js';")).toEqual([]);
  });
});

describe('boundaries/no-test-support', () => {
  it('fires when production code imports server/testing/', () => {
    expect(firing('c/x.ts', "import { s } from '../testing/support.js';")).toEqual([
      'boundaries/no-test-support',
    ]);
    expect(firing('root.ts', "import { s } from './testing/support.js';")).toEqual([
      'boundaries/no-test-support',
    ]);
  });
  it('is quiet in tests', () => {
    expect(firing('a/x.test.ts', "import { s } from '../testing/support.js';")).toEqual([]);
  });
});

describe('boundaries/no-folder-cycle', () => {
  it('fires on an import that closes a cycle between two folders, type-only too', () => {
    expect(firing('a/x.ts', "import { b } from '../b/index.js';")).toEqual([
      'boundaries/no-folder-cycle',
    ]);
    expect(firing('a/x.ts', "import type { b } from '../b/index.js';")).toEqual([
      'boundaries/no-folder-cycle',
    ]);
  });
  it('is quiet on an import that closes none, and in tests (leaves)', () => {
    expect(firing('b/x.ts', "import { a } from '../a/index.js';")).toEqual([]);
    expect(firing('c/x.ts', "import { b } from '../b/index.js';")).toEqual([]);
    expect(firing('a/x.test.ts', "import { b } from '../b/index.js';")).toEqual([]);
  });
  it('names the cycle, and is quiet on the same import once the back edge is gone', () => {
    // Two trees alike but for q/index.ts: in one it imports p (the back edge), in the other not.
    const lint = (back: boolean) => {
      const top = mkdtempSync(join(tmpdir(), 'cycle-'));
      const server = join(top, 'server');
      mkdirSync(join(server, 'p'), { recursive: true });
      mkdirSync(join(server, 'q'), { recursive: true });
      writeFileSync(join(server, 'p/index.ts'), 'export const p = 1;\n');
      writeFileSync(
        join(server, 'q/index.ts'),
        back
          ? "import { p } from '../p/index.js';\nexport const q = p;\n"
          : 'export const q = 1;\n',
      );
      const cycleConfig: Linter.Config[] = [
        {
          files: ['**/*.ts'],
          languageOptions: { parser: tseslint.parser },
          plugins: { boundaries },
          rules: { 'boundaries/no-folder-cycle': ['error', { root: server }] },
        },
      ];
      try {
        return new Linter({ cwd: top })
          .verify("import { q } from '../q/index.js';\nexport const x = q;\n", cycleConfig, {
            filename: join(server, 'p/x.ts'),
          })
          .map((m) => `${String(m.line)} ${m.ruleId ?? ''}: ${m.message}`);
      } finally {
        rmSync(top, { recursive: true, force: true });
      }
    };
    expect(lint(true)).toEqual([
      '1 boundaries/no-folder-cycle: server/p/ → server/q/ closes a folder cycle (server/q/ → server/p/): move the shared part to its owner or a smaller third module, or go through an event or port',
    ]);
    expect(lint(false)).toEqual([]);
  });
});
