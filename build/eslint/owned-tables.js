// Local ESLint rule: each table has one owner (server/db/table-owners.json). A file under
// server/<domain>/ may name in SQL only the tables its domain owns; another domain's table
// is read through a port exported from that domain's index.ts. server/db/ is the kernel
// (migrations own no domain) and is not checked. Names the map does not know (PostgreSQL's
// catalogue, json_each, …) are not ours and pass.
import { readFileSync } from 'node:fs';
import { sep } from 'node:path';

const MAP = new URL('../../server/db/table-owners.json', import.meta.url);
/** @type {Readonly<Record<string, string>>} */
const OWNERS = JSON.parse(readFileSync(MAP, 'utf8')).owners;

// A keyword that names a table next; after FROM and JOIN a comma list may name more. A string
// that starts like SQL is read in any case; elsewhere only upper-case keywords count, so prose
// ('signals from incidents') stays quiet while an upper-case fragment ('FROM x') is still read.
const KEYWORD = /\b(FROM|JOIN|INTO|UPDATE|TABLE)\s+/g;
const KEYWORD_ANY_CASE = new RegExp(KEYWORD.source, 'gi');
const STARTS_LIKE_SQL = /^\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE|WITH|CREATE)\b/i;
const NAME = /^["`[]?(\w+)["`\]]?/;
const ALIAS =
  /^\s+(?:AS\s+)?(?!(?:WHERE|JOIN|LEFT|INNER|CROSS|ON|USING|GROUP|ORDER|LIMIT|SET|VALUES|SELECT|UNION|NATURAL|OUTER|WINDOW|HAVING|RETURNING|DEFAULT)\b)\w+/i;

/** The table names a piece of SQL reads or writes. */
export function tablesIn(sql) {
  const found = [];
  for (const m of sql.matchAll(STARTS_LIKE_SQL.test(sql) ? KEYWORD_ANY_CASE : KEYWORD)) {
    let rest = sql.slice((m.index ?? 0) + m[0].length);
    for (;;) {
      const name = NAME.exec(rest);
      if (name === null) break;
      found.push(name[1]);
      rest = rest.slice(name[0].length);
      const alias = ALIAS.exec(rest);
      if (alias !== null) rest = rest.slice(alias[0].length);
      const keyword = m[1].toUpperCase();
      if (!(keyword === 'FROM' || keyword === 'JOIN')) break;
      const comma = /^\s*,\s*/.exec(rest);
      if (comma === null) break;
      rest = rest.slice(comma[0].length);
    }
  }
  return found;
}

/** The domain folder of a file (server/<domain>/…), or null outside one. */
export function domainOf(filename) {
  const parts = filename.split(sep).join('/').split('/');
  const i = parts.lastIndexOf('server');
  return i >= 0 && parts.length > i + 2 ? (parts[i + 1] ?? null) : null;
}

/** @type {import('eslint').Rule.RuleModule} */
export const ownedTables = {
  meta: {
    type: 'problem',
    docs: { description: "SQL in a domain names only the domain's own tables" },
    schema: [],
    messages: {
      foreign:
        "'{{table}}' belongs to {{owner}} (server/db/table-owners.json): ask it through a port in server/{{owner}}/index.ts",
    },
  },
  create(context) {
    const domain = domainOf(context.filename);
    if (domain === null || domain === 'db') return {};
    function check(node, sql) {
      for (const table of tablesIn(sql)) {
        const owner = Object.hasOwn(OWNERS, table) ? OWNERS[table] : undefined;
        if (owner !== undefined && owner !== domain)
          context.report({ node, messageId: 'foreign', data: { table, owner } });
      }
    }
    return {
      Literal(node) {
        if (typeof node.value === 'string') check(node, node.value);
      },
      TemplateLiteral(node) {
        // An interpolation stands for something other than a table keyword's name.
        check(node, node.quasis.map((q) => q.value.cooked ?? q.value.raw).join(' ? '));
      },
    };
  },
};

export default { rules: { 'owned-tables': ownedTables } };
