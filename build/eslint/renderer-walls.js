// renderer/src's walls as one lint rule (issue 22, docs/console.md "Code layout"):
// - features/<name>/ is reached from outside only through its index.ts (pages the shell loads
//   on demand are lazy exports of that index, so a chunk boundary never leaks);
// - shared/ is under everything: it imports neither features/ nor shell/;
// - features/ never import shell/ (the frame composes features, not the other way);
// - from server/, only types, and only from its wire files (*.schemas.ts, *.wire.ts), which
//   hold no Node or store code: the console shows what the server sends, typed once.
import { dirname, join, relative, resolve, sep } from 'node:path';

const rootOf = (context) =>
  resolve(context.options[0]?.root ?? join(context.cwd, 'renderer', 'src'));
const serverOf = (context) => resolve(context.options[0]?.server ?? join(context.cwd, 'server'));

/** The file's place under root: its top folder and, under features/, the feature. */
function placeOf(root, file) {
  const rel = relative(root, file);
  if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) return null;
  const parts = rel.split(sep);
  const top = parts.length === 1 ? null : parts[0];
  const feature = top === 'features' && parts.length > 2 ? parts[1] : null;
  return { top, feature, rest: parts.slice(top === 'features' ? 2 : 1).join('/') };
}

const WIRE = /\.(schemas|wire)(\.[cm]?[jt]s)?$/;

const walls = {
  meta: {
    type: 'problem',
    docs: { description: "renderer/src's folders keep to their walls" },
    schema: [
      {
        type: 'object',
        properties: { root: { type: 'string' }, server: { type: 'string' } },
        additionalProperties: false,
      },
    ],
    messages: {
      index:
        'Import features/{{feature}}/ only through its index.ts, not {{file}}: export what others need from features/{{feature}}/index.ts',
      shared: 'shared/ is under every feature and the shell: it must not import {{target}}',
      shell: 'A feature never imports shell/: the frame composes the features',
      serverType:
        'The console takes only types from server/: write `import type` (values stay on the server)',
      serverWire:
        'The console imports server/ types only from *.schemas.ts or *.wire.ts, not {{file}}: move the wire shape there',
    },
  },
  create(context) {
    const root = rootOf(context);
    const server = serverOf(context);
    const from = placeOf(root, resolve(context.filename));
    if (from === null) return {};
    const check = (node, source, typeOnly) => {
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      if (!source.value.startsWith('.')) return;
      const target = resolve(dirname(resolve(context.filename)), source.value);
      const inServer = relative(server, target);
      if (!inServer.startsWith('..') && !inServer.startsWith(sep)) {
        if (!typeOnly) context.report({ node: source, messageId: 'serverType' });
        else if (!WIRE.test(target))
          context.report({
            node: source,
            messageId: 'serverWire',
            data: { file: `server/${inServer}` },
          });
        return;
      }
      const to = placeOf(root, target);
      if (to === null) return;
      if (from.top === 'shared' && (to.top === 'features' || to.top === 'shell')) {
        context.report({ node: source, messageId: 'shared', data: { target: `${to.top}/` } });
        return;
      }
      if (from.top === 'features' && to.top === 'shell') {
        context.report({ node: source, messageId: 'shell' });
        return;
      }
      if (to.feature === null || to.feature === from.feature) return;
      if (/^index(\.[cm]?[jt]sx?)?$/.test(to.rest)) return;
      context.report({
        node: source,
        messageId: 'index',
        data: { feature: to.feature, file: `features/${to.feature}/${to.rest}` },
      });
    };
    const isTypeOnly = (n) =>
      n.importKind === 'type' ||
      n.exportKind === 'type' ||
      (n.specifiers?.length > 0 &&
        n.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type'));
    return {
      ImportDeclaration: (n) => check(n, n.source, isTypeOnly(n)),
      ExportNamedDeclaration: (n) => check(n, n.source, isTypeOnly(n)),
      ExportAllDeclaration: (n) => check(n, n.source, n.exportKind === 'type'),
      ImportExpression: (n) => check(n, n.source, false),
      TSImportType: (n) =>
        check(n, n.argument?.type === 'TSLiteralType' ? n.argument.literal : n.argument, true),
    };
  },
};

export default { rules: { walls } };
