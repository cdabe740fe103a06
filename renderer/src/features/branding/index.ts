// The branding feature as other folders see it: they import from here, never its files.
export {
  BACKGROUND,
  BrandMark,
  BrandingEffect,
  SupportLinks,
  contrastRatio,
  readableAccent,
} from './branding.js';
export { brandingApi, type Branding, type BrandingInput, type BrandingTheme } from './api.js';
export { brandingKeys, useBranding } from './queries.js';
