// The query language: one parser, one printer and one SQLite compiler (see
// query-language/ast.ts for the grammar), reused by every list that takes `query`.
export {
  MAX_QUERY_DEPTH,
  MAX_QUERY_LENGTH,
  type CompareOp,
  type DurationUnit,
  type QueryNode,
} from './query-language/ast.js';
export { parseQuery } from './query-language/parse.js';
export { formatQuery } from './query-language/format.js';
export {
  compileQuery,
  type CompiledQuery,
  type QueryFieldSpec,
  type QueryFields,
} from './query-language/compile.js';
