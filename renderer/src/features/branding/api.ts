// Branding (GET and PUT /v1/branding, docs/branding.md): calls; the wire shapes are the
// server's own (server/branding/branding.schemas.ts).
import type {
  BrandingInput,
  BrandingView,
  SupportLink,
  Theme,
} from '../../../../server/branding/branding.schemas.js';
import { call } from '../../shared/api.js';

export type { BrandingInput, SupportLink };
export type BrandingTheme = Theme;
/** GET /v1/branding (no credential needed) and the PUT answer: an empty logo slot is null. */
export type Branding = BrandingView;

export const brandingApi = {
  branding: () => call<Branding>('GET', '/v1/branding'),
  putBranding: (body: BrandingInput) => call<Branding>('PUT', '/v1/branding', body),
};
