// The branding feature as other folders see it: they import from here, never its files.
export {
  BrandMark,
  BrandingEffect,
  SupportLinks,
  brandingKey,
  contrastRatio,
  readableAccent,
  useBranding,
} from './branding.js';
export { brandingApi, type Branding, type BrandingTheme } from './api.js';
