export {
  createBrandingStore,
  type BrandingStore,
  type BrandingRow,
  BRANDING_SET,
} from './branding.store.js';
export {
  createBrandingService,
  checkBranding,
  checkLogo,
  checkSvg,
  sha256Of,
  type BrandingService,
  type BrandingAnswer,
  type CheckedLogo,
} from './branding.service.js';
export { brandingRoutes, etagMatches } from './branding.routes.js';
export {
  BRANDING_BODY_LIMIT,
  DEFAULT_BRANDING,
  LOGO_MAX_BYTES,
  LOGO_SLOTS,
  LogoType,
  Theme,
  type Branding,
  type BrandingInput,
  type BrandingView,
  type Logos,
  type LogoSlot,
  type SupportLink,
} from './branding.schemas.js';
export { brandingEvents, type BrandingEvents } from './branding.events.js';
