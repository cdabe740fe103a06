// GET /v1/search/fields's answer: the route's schema, and its types for the console
// (renderer/src/features/episodes' query bar). Types only from typebox.
import { Type, type Static } from 'typebox';

const Field = Type.Object({
  name: Type.String(),
  type: Type.String(),
  values: Type.Optional(Type.Array(Type.String())),
  multi: Type.Optional(Type.Boolean()),
});
export const SearchList = Type.Object({
  fields: Type.Array(Field),
  facets: Type.Array(Type.String()),
  /** `data.<key>:<value>` matches inside the event data */
  data: Type.Boolean(),
  /** the field `last:` and `opened<` compare with */
  time: Type.String(),
  /** bare words match any of these */
  text: Type.Array(Type.String()),
});

export const SearchFieldsBody = Type.Object({
  episodes: SearchList,
  ledger: SearchList,
  approvals: SearchList,
});

/** What the query language can name in one list. */
export type SearchList = Static<typeof SearchList>;
export type SearchField = SearchList['fields'][number];
export type SearchFieldsBody = Static<typeof SearchFieldsBody>;
