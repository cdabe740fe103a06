// Branding (GET and PUT /v1/branding, docs/branding.md): wire shapes and calls.
import { call } from '../../shared/api.js';

export type BrandingTheme = 'light' | 'dark' | 'system';

export interface SupportLink {
  label: string;
  url: string;
}

/** GET /v1/branding (no credential needed) and the PUT answer: an empty logo slot is null. */
export interface Branding {
  name: string;
  logos: { light: string | null; dark: string | null; mark: string | null };
  theme: BrandingTheme;
  /** #rrggbb, lower case. */
  accent: string;
  support: SupportLink[];
  set_by: string | null;
  set_at: string | null;
}

/** PUT /v1/branding replaces the whole document: a missing field takes its default. */
export interface BrandingInput {
  name?: string;
  logos?: { light?: string | null; dark?: string | null; mark?: string | null };
  theme?: BrandingTheme;
  accent?: string;
  support?: SupportLink[];
}

export const brandingApi = {
  branding: () => call<Branding>('GET', '/v1/branding'),
  putBranding: (body: BrandingInput) => call<Branding>('PUT', '/v1/branding', body),
};
