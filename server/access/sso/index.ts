// Single sign-on (OpenID Connect): the code flow with PKCE and its settings.
export {
  createSsoService,
  providerErrorText,
  SSO_REDEEM_TTL_MS,
  SSO_STATE_TTL_MS,
  type SsoDeps,
  type SsoService,
} from './sso.service.js';
export { createSsoStore, SSO_SET, type SsoStore } from './sso.store.js';
export { ssoRoutes } from './sso.routes.js';
export type { SsoSettings, SsoSettingsInput, SsoSettingsView } from './sso.schemas.js';
