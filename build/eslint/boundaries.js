// server/'s walls as lint rules (issue 17, docs/decisions.md): a domain is reached only
// through its index.ts, the kernel layers never import a domain, production code never
// imports test support, and no import closes a cycle between server/ folders.
//
// What is what under server/ (the root, option `root`, default <cwd>/server):
// - layers: shared/, http/, db/: imported file by file, never import a domain;
// - test support: testing/: imported only by tests, bench/ and e2e/; may reach into any file;
// - a domain: every other folder, sub-folders included (access/signin/ is access);
// - a root file (config.ts, logger.ts, …): its own node in the folder graph.
// Tests (*.test.ts) are leaves: nothing imports them, so they close no cycle and stay out
// of the graph; they still reach other domains only through their index.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const LAYERS = new Set(['shared', 'http', 'db']);
const TESTING = 'testing';
const isTest = (file) => /\.test\.[cm]?tsx?$/.test(file);
const CODE = /\.[cm]?tsx?$/;

const optionsSchema = [
  {
    type: 'object',
    properties: { root: { type: 'string' } },
    additionalProperties: false,
  },
];

const rootOf = (context) => resolve(context.options[0]?.root ?? join(context.cwd, 'server'));

/** Where a file lies: null outside root; else its folder (null for a root file) and node. */
function placeOf(root, file) {
  const rel = relative(root, file);
  if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) return null;
  const parts = rel.split(sep);
  if (parts.length === 1) {
    return { folder: null, node: parts[0].replace(/\.[^.]+$/, ''), rest: parts[0] };
  }
  return { folder: parts[0], node: `${parts[0]}/`, rest: parts.slice(1).join('/') };
}

const kindOf = (folder) =>
  folder === null
    ? 'root'
    : LAYERS.has(folder)
      ? 'layer'
      : folder === TESTING
        ? 'testing'
        : 'domain';

const label = (node) => `server/${node.endsWith('/') ? node : `${node}.ts`}`;

/** Every relative module specifier of a file's import/export statements, with its node. */
function visitImports(context, onImport) {
  const check = (source) => {
    if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
    if (!source.value.startsWith('.')) return;
    onImport(source, resolve(dirname(context.filename), source.value));
  };
  return {
    ImportDeclaration: (n) => check(n.source),
    ExportNamedDeclaration: (n) => check(n.source),
    ExportAllDeclaration: (n) => check(n.source),
    ImportExpression: (n) => check(n.source),
    TSImportType: (n) =>
      check(n.argument?.type === 'TSLiteralType' ? n.argument.literal : n.argument),
  };
}

const domainIndex = {
  meta: {
    type: 'problem',
    docs: { description: 'Another domain is imported only through its index.ts' },
    schema: optionsSchema,
    messages: {
      index:
        'Import server/{{domain}}/ only through its index.ts, not {{file}}: export what other domains need from server/{{domain}}/index.ts',
    },
  },
  create(context) {
    const root = rootOf(context);
    const from = placeOf(root, context.filename);
    if (from === null || from.folder === TESTING) return {};
    return visitImports(context, (node, target) => {
      const to = placeOf(root, target);
      if (to === null || to.folder === from.folder || kindOf(to.folder) !== 'domain') return;
      if (/^index(\.[cm]?[jt]s)?$/.test(to.rest)) return;
      context.report({
        node,
        messageId: 'index',
        data: { domain: to.folder, file: `server/${to.folder}/${to.rest}` },
      });
    });
  },
};

const layers = {
  meta: {
    type: 'problem',
    docs: { description: 'The kernel layers (shared/, http/, db/) never import a domain' },
    schema: optionsSchema,
    messages: {
      layer:
        'server/{{layer}}/ is a layer under every domain and must not import server/{{domain}}/: move the code to the domain, or pass it in',
    },
  },
  create(context) {
    const root = rootOf(context);
    const from = placeOf(root, context.filename);
    if (from === null || kindOf(from.folder) !== 'layer' || isTest(context.filename)) return {};
    return visitImports(context, (node, target) => {
      const to = placeOf(root, target);
      if (to === null || kindOf(to.folder) !== 'domain') return;
      context.report({ node, messageId: 'layer', data: { layer: from.folder, domain: to.folder } });
    });
  },
};

const noTestSupport = {
  meta: {
    type: 'problem',
    docs: { description: 'Production code never imports server/testing/' },
    schema: optionsSchema,
    messages: {
      testing: 'server/testing/ is test support: only tests, bench/ and e2e/ import it',
    },
  },
  create(context) {
    const root = rootOf(context);
    const from = placeOf(root, context.filename);
    if (from === null || from.folder === TESTING || isTest(context.filename)) return {};
    return visitImports(context, (node, target) => {
      if (placeOf(root, target)?.folder === TESTING) context.report({ node, messageId: 'testing' });
    });
  },
};

// ── The folder graph, read from the files on disk (type-only imports count) ──

const SPECIFIER =
  /(?:^|[;\n}])\s*(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]*?\s+from\s+)?['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;
const COMMENT = /\/\*[\s\S]*?\*\/|(^|[^:\\])\/\/.*$/gm;

function sourcesOf(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) sourcesOf(p, out);
    else if (CODE.test(e.name) && !e.name.endsWith('.d.ts') && !isTest(e.name)) out.push(p);
  }
  return out;
}

/** node → the other nodes its non-test files import, for every file under root. */
function scan(root) {
  const adj = new Map();
  for (const file of sourcesOf(root)) {
    const from = placeOf(root, file).node;
    const text = readFileSync(file, 'utf8').replace(COMMENT, '$1');
    for (const m of text.matchAll(SPECIFIER)) {
      const to = placeOf(root, resolve(dirname(file), m[1] ?? m[2]));
      if (to === null || to.node === from) continue;
      const row = adj.get(from) ?? new Set();
      row.add(to.node);
      adj.set(from, row);
    }
  }
  return adj;
}

// One scan per root and lint run; an editor's long-lived process re-reads after a while.
const FRESH_MS = 10_000;
const scans = new Map();
function graphOf(root) {
  const cached = scans.get(root);
  if (cached !== undefined && Date.now() - cached.at < FRESH_MS) return cached.adj;
  const adj = scan(root);
  scans.set(root, { at: Date.now(), adj });
  return adj;
}

const noFolderCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'No import closes a cycle between server/ folders' },
    schema: optionsSchema,
    messages: {
      cycle:
        '{{from}} → {{to}} closes a folder cycle ({{path}}): move the shared part to its owner or a smaller third module, or go through an event or port',
    },
  },
  create(context) {
    const root = rootOf(context);
    const file = resolve(context.filename);
    const from = placeOf(root, file);
    if (from === null || isTest(file)) return {};
    const imports = [];
    return {
      ...visitImports(context, (node, target) => {
        const to = placeOf(root, target);
        if (to !== null && to.node !== from.node) imports.push({ node, to: to.node });
      }),
      'Program:exit'() {
        // The search walks back from the imported node and stops on reaching this file's node,
        // so only this file's imports as written now count, never its copy on disk.
        const adj = graphOf(root);
        const next = (n) => adj.get(n) ?? [];
        const pathBack = (start) => {
          const seen = new Map([[start, null]]);
          const queue = [start];
          while (queue.length > 0) {
            const n = queue.shift();
            if (n === from.node) {
              const path = [];
              for (let m = n; m !== null; m = seen.get(m)) path.unshift(label(m));
              return path;
            }
            for (const m of next(n)) {
              if (!seen.has(m)) {
                seen.set(m, n);
                queue.push(m);
              }
            }
          }
          return null;
        };
        const found = new Map();
        for (const { node, to } of imports) {
          if (!found.has(to)) found.set(to, pathBack(to));
          const path = found.get(to);
          if (path === null) continue;
          context.report({
            node,
            messageId: 'cycle',
            data: { from: label(from.node), to: label(to), path: path.join(' → ') },
          });
        }
      },
    };
  },
};

export default {
  meta: { name: 'boundaries' },
  rules: {
    'domain-index': domainIndex,
    layers,
    'no-test-support': noTestSupport,
    'no-folder-cycle': noFolderCycle,
  },
};
