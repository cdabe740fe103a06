// Branding (GET/PUT /v1/branding): the name, logos, theme, accent colour and support links
// the console shows. Wire shapes only: the data-URI and link checks live in the service.
import { Type, type Static, type TSchema } from 'typebox';

/** "each at most 500 KB": decoded bytes of one logo (500 × 1024). */
export const LOGO_MAX_BYTES = 512_000;

/** PUT body limit: three base64 logos (≈ 683 KB each) plus the JSON around them, 2.5 MiB. */
export const BRANDING_BODY_LIMIT = 2_621_440;

export const LogoType = {
  Png: 'image/png',
  Jpeg: 'image/jpeg',
  Webp: 'image/webp',
  Svg: 'image/svg+xml',
} as const;
export type LogoType = (typeof LogoType)[keyof typeof LogoType];

/** light: on light backgrounds; dark: on dark backgrounds; mark: the small square sign. */
export const LOGO_SLOTS = ['light', 'dark', 'mark'] as const;
export type LogoSlot = (typeof LOGO_SLOTS)[number];

export const Theme = { Light: 'light', Dark: 'dark', System: 'system' } as const;
export type Theme = (typeof Theme)[keyof typeof Theme];

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

const Logo = Type.String({
  minLength: 1,
  description:
    'data URI: image/png, image/jpeg or image/webp in base64; image/svg+xml in base64 or ' +
    'percent-encoded; at most 512,000 bytes decoded',
});

export const Logos = Type.Object(
  {
    light: Type.Optional(Logo),
    dark: Type.Optional(Logo),
    mark: Type.Optional(Logo),
  },
  { additionalProperties: false },
);
export type Logos = Static<typeof Logos>;

export const SupportLink = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 60 }),
    url: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'http://, https:// or mailto:',
    }),
  },
  { additionalProperties: false },
);
export type SupportLink = Static<typeof SupportLink>;

const ThemeSchema = Type.Union([
  Type.Literal(Theme.Light),
  Type.Literal(Theme.Dark),
  Type.Literal(Theme.System),
]);

const Accent = Type.String({
  pattern: '^#[0-9A-Fa-f]{6}$',
  description: '#rrggbb; stored in lower case',
});

const Name = Type.String({ minLength: 1, maxLength: 80 });

const Support = Type.Array(SupportLink, { maxItems: 8 });

/** The whole document, every field present: what is stored and recorded in the ledger. */
export const Branding = Type.Object(
  { name: Name, logos: Logos, theme: ThemeSchema, accent: Accent, support: Support },
  { additionalProperties: false },
);
export type Branding = Static<typeof Branding>;

/**
 * The PUT body: every field optional, a missing one takes its default (PUT replaces the
 * whole document); a logo may be null (= none) so that a GET answer can be sent back.
 * `by` names the person the admin token acts for; ignored for any other credential.
 */
export const BrandingInput = Type.Object(
  {
    name: Type.Optional(Name),
    logos: Type.Optional(
      Type.Object(
        {
          light: Type.Optional(Nullable(Logo)),
          dark: Type.Optional(Nullable(Logo)),
          mark: Type.Optional(Nullable(Logo)),
        },
        { additionalProperties: false },
      ),
    ),
    theme: Type.Optional(ThemeSchema),
    accent: Type.Optional(Accent),
    support: Type.Optional(Support),
    by: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type BrandingInput = Static<typeof BrandingInput>;

/** GET /v1/branding (and the PUT answer): absent logos are null. */
export const BrandingView = Type.Object({
  name: Type.String(),
  logos: Type.Object({
    light: Nullable(Type.String()),
    dark: Nullable(Type.String()),
    mark: Nullable(Type.String()),
  }),
  theme: ThemeSchema,
  accent: Type.String(),
  support: Type.Array(Type.Object({ label: Type.String(), url: Type.String() })),
  set_by: Nullable(Type.String()),
  set_at: Nullable(Type.String()),
});
export type BrandingView = Static<typeof BrandingView>;

/**
 * A new install. The accent #3b6ac0 carries white text at 5.24:1 and stands on white at
 * 5.24:1 (WCAG AA text), and on the dark background #0F1115 at 3.61:1 (WCAG 1.4.11 fills,
 * boundaries and focus rings); docs/branding.md says which use needs which.
 */
export const DEFAULT_BRANDING: Branding = {
  name: 'Incident response',
  logos: {},
  theme: Theme.System,
  accent: '#3b6ac0',
  support: [],
};
