export { adminTokenFile, loadOrCreateAdminToken } from './admin-token.js';
export {
  createSessionsStore,
  SessionEnd,
  type SessionRecord,
  type SessionsStore,
} from './sessions.store.js';
export {
  createSessionsService,
  FIRST_OWNER,
  hashSessionToken,
  SESSION_IDLE_MS,
  SESSION_KEEP_ENDED_MS,
  SESSION_MAX_MS,
  SESSION_SWEEP_MS,
  SESSION_TOKEN_PREFIX,
  SESSION_TOUCH_MS,
  SIGNED_IN,
  SIGNED_OUT,
  SignInMethod,
  type Me,
  type SessionIdentity,
  type SessionsService,
  type SessionView,
} from './sessions.service.js';
export { sessionsRoutes } from './sessions.routes.js';
export { LoginBody, LoginReply, MeBody, SessionBody } from './sessions.schemas.js';
export { createSignInGuard, TooManyAttemptsError, type SignInGuard } from './throttle.js';
export {
  createIdentitiesStore,
  IDENTITY_BOUND,
  type IdentitiesStore,
  type IdentityBinding,
} from './identities.js';
export {
  answerThrottled,
  BOOTSTRAP,
  CODE_REQUEST_LIMITS,
  createPasswordsService,
  createSignInService,
  createSignInStore,
  signInRoutes,
  type PasswordsService,
  type SignInService,
} from './signin/index.js';
export { createLdapSignIn, ldapRoutes, type LdapSignIn } from './ldap/index.js';
export {
  createSsoService,
  createSsoStore,
  ssoRoutes,
  SSO_SET,
  type SsoService,
  type SsoStore,
} from './sso/index.js';
export { accessEvents, type AccessEvents } from './access.events.js';
