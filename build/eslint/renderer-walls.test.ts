// The renderer's walls fire on deliberately bad imports and stay quiet on good ones; the
// files need not exist (the rule reads paths only).
import { join } from 'node:path';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import walls from './renderer-walls.js';

const dir = '/project';
const root = join(dir, 'renderer', 'src');
const server = join(dir, 'server');
const linter = new Linter({ cwd: dir });
const config: Linter.Config[] = [
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parser: tseslint.parser },
    plugins: { renderer: walls },
    rules: { 'renderer/walls': ['error', { root, server }] },
  },
];

/** The messages the rule gives on `code` written as renderer/src/<file>. */
const firing = (file: string, code: string): string[] =>
  linter.verify(code, config, { filename: join(root, file) }).map((m) => m.message);

describe('renderer/walls', () => {
  it("fires on an import of another feature's file, values, types and lazy alike", () => {
    for (const code of [
      "import { usersKey } from '../people/people.js';",
      "import type { Person } from '../people/api.js';",
      "export { peopleApi } from '../people/api.js';",
      "const m = import('../people/me.js');",
    ]) {
      expect(firing('features/live/x.ts', code)).toEqual([
        expect.stringMatching(/^Import features\/people\/ only through its index\.ts/),
      ]);
    }
    expect(
      firing('shell/x.tsx', "import { MePage } from '../features/people/me.js';"),
    ).toHaveLength(1);
  });
  it('fires when shared/ imports a feature or the shell, or a feature imports the shell', () => {
    expect(firing('shared/x.ts', "import { useMe } from '../features/people/index.js';")).toEqual([
      expect.stringMatching(/^shared\/ is under every feature/),
    ]);
    expect(firing('shared/x.ts', "import { App } from '../shell/app.js';")).toHaveLength(1);
    expect(firing('features/live/x.ts', "import { App } from '../../shell/app.js';")).toEqual([
      expect.stringMatching(/^A feature never imports shell/),
    ]);
  });
  it('takes only types from server/, and only from its wire files', () => {
    expect(
      firing(
        'features/live/x.ts',
        "import { Live } from '../../../../server/live/live.schemas.js';",
      ),
    ).toEqual([expect.stringMatching(/only types from server/)]);
    expect(
      firing(
        'features/live/x.ts',
        "import type { Live } from '../../../../server/live/live.store.js';",
      ),
    ).toEqual([
      expect.stringMatching(
        /only from \*\.schemas\.ts or \*\.wire\.ts, not server\/live\/live\.store\.js/,
      ),
    ]);
  });
  it('is quiet on an index, its own feature, shared/ and server wire types', () => {
    for (const [file, code] of [
      ['features/live/x.ts', "import { useMe } from '../people/index.js';"],
      ['features/live/x.ts', "import { liveApi } from './api.js';"],
      ['features/live/x.ts', "import { Link } from '../../shared/parts.js';"],
      ['shell/x.tsx', "import { LivePage } from '../features/live/index.js';"],
      ['shared/x.ts', "import { call } from './api.js';"],
      [
        'features/live/x.ts',
        "import type { Live } from '../../../../server/live/live.schemas.js';",
      ],
      ['features/live/x.ts', "import { type Live } from '../../../../server/live/live.wire.js';"],
    ]) {
      expect(firing(file!, code!)).toEqual([]);
    }
  });
});
