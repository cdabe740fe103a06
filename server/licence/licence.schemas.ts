import { Type, type Static } from 'typebox';

export const InstallLicenceBody = Type.Object(
  {
    /** the licence envelope, as the file's text or as its JSON */
    licence: Type.Union([
      Type.String({ minLength: 1, maxLength: 512 * 1024 }),
      Type.Object({}, { additionalProperties: true }),
    ]),
    /** required when the new licence gives up features or limits of the one in force */
    acknowledge: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const LicenceAnswer = Type.Object({
  /** false when the same licence was already in force (nothing recorded) */
  changed: Type.Boolean(),
  licence: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
});
export type LicenceAnswer = Static<typeof LicenceAnswer>;
