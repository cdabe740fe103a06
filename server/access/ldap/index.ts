// Directory (LDAP) sign-in: POST /v1/auth/ldap through the first ldap connector.
export {
  createLdapSignIn,
  type LdapConnectors,
  type LdapSignIn,
  type LdapSignInDeps,
} from './ldap.service.js';
export { LdapSignInBody, ldapRoutes } from './ldap.routes.js';
export {
  SIGN_IN_FAILED,
  SignInUnavailableError,
  type AdmitIdentity,
  type PeopleForSignIn,
  type SessionOpener,
  type SignedIn,
} from './shared.js';
